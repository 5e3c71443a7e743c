package storetest

import (
	"os"
	"path/filepath"
	"testing"
)

// MigratedDataDir puts into dir (made private if missing), as recur.db, a
// copy of the database migrated once for the test binary (see MustOpenAt),
// and returns dir: a data folder for a test that runs Recur's commands or
// server, which then find every migration applied. The migrations' own
// tests, and those about what the commands make of an empty folder, start
// from nothing instead.
func MigratedDataDir(tb testing.TB, dir string) string {
	tb.Helper()
	db, err := migrated()
	if err != nil {
		tb.Fatalf("migrating the stores' first database: %v", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recur.db"), db, 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}
