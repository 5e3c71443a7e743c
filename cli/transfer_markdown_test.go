package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// recur export --format markdown writes the zip that recur import reads
// back into another instance, entry for entry.
func TestExportMarkdown(t *testing.T) {
	t.Parallel()
	instance := func() []string {
		return []string{"RECUR_STORAGE_DATA_DIR=" + t.TempDir(), "RECUR_LOG_LEVEL=error"}
	}
	first, second := instance(), instance()
	for _, env := range [][]string{first, second} {
		if _, _, err := runEnv(t, env, "", "migrate", "up"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := runEnv(t, env, "", "user", "add", "me@example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if out, _, err := runEnv(t, first, "", "import", filepath.Join("importer", "testdata", "dayone.zip"), "--user", "me@example.com", "--no-wait"); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	file := filepath.Join(t.TempDir(), "journal.zip")
	if _, msg, err := runEnv(t, first, "", "export", "--user", "me@example.com", "--format", "markdown", "--output", file); err != nil {
		t.Fatalf("export --format markdown: %v %s", err, msg)
	}
	out, _, err := runEnv(t, second, "", "import", file, "--user", "me@example.com", "--no-wait")
	if err != nil || !strings.Contains(out, "(Markdown") {
		t.Fatalf("import of the Markdown export printed %q, %v", out, err)
	}
	// Importing the Day One journal again into the second instance adds
	// nothing: the Markdown export brought every entry at its moment.
	out, _, err = runEnv(t, second, "", "import", filepath.Join("importer", "testdata", "dayone.zip"), "--user", "me@example.com", "--no-wait")
	if err != nil || !strings.Contains(out, "Imported 0 entries") {
		t.Fatalf("the Day One journal after its Markdown copy: %q, %v", out, err)
	}
	if _, _, err := runEnv(t, first, "", "export", "--user", "me@example.com", "--format", "pdf"); err == nil {
		t.Fatal("an unknown format was accepted")
	}
}
