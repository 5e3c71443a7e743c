package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recur serve spools uploads under the data folder, so an import works when
// the temporary folder cannot be written (a container with read_only:
// true), and leaves nothing there; a start-up clears what a crash left.
func TestServeSpoolsUnderTheDataFolder(t *testing.T) {
	dir := t.TempDir()
	spool := filepath.Join(dir, spoolDir)
	if err := os.MkdirAll(filepath.Join(spool, "recur-import-crashed"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, base := startServer(t, dir)
	if _, _, err := run(t, dir, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	token, _, err := run(t, dir, "", "token", "create", "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(spool); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("spool folder: %v, %v; want one of mode 0700", info, err)
	}
	if left, _ := os.ReadDir(spool); len(left) > 0 {
		t.Fatalf("start-up left %v in the spool", left)
	}

	// Root may write a read-only folder; a missing one fails for everyone.
	t.Setenv("TMPDIR", filepath.Join(dir, "read-only"))
	req, _ := http.NewRequest("POST", base+"/captures/import", strings.NewReader("---\ndate: 2025-04-02 09:30\n---\nA walk by the river.\n"))
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(token))
	req.Header.Set("Content-Type", "text/markdown")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("import: %d, want 202", res.StatusCode)
	}
	if left, _ := os.ReadDir(spool); len(left) > 0 {
		t.Errorf("the import left %v in the spool", left)
	}
}
