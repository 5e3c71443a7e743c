package server_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// mountSmall mounts a tmpfs of size bytes in a fresh folder and unmounts it
// when t ends; it skips t where mounting is not allowed.
func mountSmall(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small filesystem here (%v); store's TestDiskFull covers a full database", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes to a file in dir until the filesystem has no room left.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for range 1 << 14 { // bounded: 1 GiB at most
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatal(err)
		}
	}
	t.Fatal("the small filesystem never filled up")
	return ""
}

// On a real full disk, a write answers 507 with a sentence, and the health
// check says degraded (still 200: reads work) until a write succeeds again.
func TestDiskFullAnswers507(t *testing.T) {
	dir := mountSmall(t, "8m")
	path := filepath.Join(dir, "recur.db")
	s := storetest.MustOpenAt(t, path, nil)
	h := &harness{t: t, store: s, dbPath: path}
	h.srv, h.api = startServer(t, s)
	h.check = newDocCheck(t, h.srv.Config.Handler)
	h.alice = storetest.MustCreateUser(t, s, "alice@example.com")
	h.tokenA = storetest.MustCreateToken(t, s, h.alice.ID)
	filler := fill(t, dir)

	text := strings.Repeat("A day that takes up room on the disk. ", 250)
	var res response
	for i := 0; i < 200; i++ {
		if res = h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": text}); res.Status != http.StatusCreated {
			break
		}
	}
	if res.Status != http.StatusInsufficientStorage {
		t.Fatalf("writing on a full disk: %d %s, want 507", res.Status, res.Body)
	}
	var body map[string]any
	if err := json.Unmarshal(res.Body, &body); err != nil || len(body) != 1 || !strings.Contains(body["message"].(string), "disk is full") {
		t.Errorf("507 body %s, want only a message saying the disk is full", res.Body)
	}

	health := func() server.Health {
		t.Helper()
		res := h.do("GET", "/api/health-check", h.tokenA, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("health check: %d %s, want 200 while reads work", res.Status, res.Body)
		}
		var got struct{ Data server.Health }
		if err := json.Unmarshal(res.Body, &got); err != nil {
			t.Fatal(err)
		}
		return got.Data
	}
	if d := health(); d.Status != "degraded" || d.Database.OK || !d.Database.DiskFull || d.Database.Error == "" {
		t.Errorf("health with the disk full: %q %+v, want degraded, database not ok, disk_full", d.Status, d.Database)
	}
	checkOpenAnswer(t, h.do("GET", "/api/health-check", "", nil), "degraded", map[string]bool{"database": false})

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if res := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": "Room again."}); res.Status != http.StatusCreated {
		t.Fatalf("writing once there is room: %d %s", res.Status, res.Body)
	}
	if d := health(); d.Status != "ok" || !d.Database.OK || d.Database.DiskFull {
		t.Errorf("health once a write succeeded: %q %+v, want ok", d.Status, d.Database)
	}
}
