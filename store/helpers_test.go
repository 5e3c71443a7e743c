package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func cutPipe(plain string) (id, secret string, ok bool) { return strings.Cut(plain, "|") }

func fileContains(t *testing.T, path, s string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte(s))
}

func asError(err error, target **store.Error) bool { return errors.As(err, target) }

// openBefore opens a store at path rolled back to just before migration
// version (however many came after it), and the same file as a plain
// database, to write rows as they were before that migration.
func openBefore(t *testing.T, path string, version int64) (*store.Store, *sql.DB) {
	t.Helper()
	s := storetest.MustOpenAt(t, path, nil)
	for v := int64(0); v != version; {
		var err error
		if v, err = s.MigrateDown(context.Background()); err != nil || v < version {
			t.Fatalf("down: %d %v", v, err)
		}
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s, db
}

// queryStrings runs q on db and returns its one column of every row.
func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// checkStrings fails the test unless got is want, naming what.
func checkStrings(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}
