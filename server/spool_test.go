package server_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/server"
)

// noRoom stands in for a full disk: every write fails with ENOSPC.
type noRoom struct{}

func (noRoom) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "spool", Err: syscall.ENOSPC}
}

// An import never answers 500 for want of a temporary folder: uploads are
// spooled in the folder given (under the data folder), whatever TMPDIR
// says, and a disk with no room answers 507 with a sentence, keeping
// nothing.
func TestImportSpool(t *testing.T) {
	spools := t.TempDir()
	upload := func(t *testing.T, h *harness) response {
		// Root may write a read-only folder; a missing one fails for everyone.
		t.Setenv("TMPDIR", filepath.Join(spools, "read-only"))
		req := h.request("POST", "/api/captures/import", nil)
		req.Header.Set("Content-Type", "text/markdown")
		req.Body = io.NopCloser(strings.NewReader("---\ndate: 2025-04-02 09:30\n---\nA walk by the river before work.\n"))
		return h.send(req, h.tokenA)
	}
	t.Run("ReadOnlyTemporaryFolder", func(t *testing.T) {
		dir := filepath.Join(spools, "ok")
		os.Mkdir(dir, 0o700)
		h := newHarness(t, func(o *server.Options) { o.Spool = journal.Spool{Dir: dir} })
		if res := upload(t, h); res.Status != 202 {
			t.Fatalf("import: %d %s, want 202", res.Status, res.Body)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("left in the spool: %v", left)
		}
	})
	t.Run("FullDisk", func(t *testing.T) {
		dir := filepath.Join(spools, "full")
		os.Mkdir(dir, 0o700)
		h := newHarness(t, func(o *server.Options) {
			o.Spool = journal.Spool{Dir: dir, Writer: func(io.Writer) io.Writer { return noRoom{} }}
		})
		res := upload(t, h)
		if res.Status != 507 || !strings.Contains(string(res.Body), "disk is full") {
			t.Fatalf("import: %d %s, want 507 saying the disk is full", res.Status, res.Body)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("left in the spool: %v", left)
		}
		if list := h.do("GET", "/api/captures", h.tokenA, nil); !strings.Contains(string(list.Body), `"total":0`) {
			t.Errorf("captures after a refused import: %s", list.Body)
		}
	})
}
