// Package storetest opens real SQLite stores in temporary folders for tests.
package storetest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/store"
)

// MustOpen opens a migrated store in a fresh temporary folder, closed when
// the test ends, running by a new Clock.
func MustOpen(tb testing.TB) *store.Store {
	tb.Helper()
	return MustOpenAt(tb, filepath.Join(tb.TempDir(), "recur.db"), nil)
}

// MustOpenAt opens and migrates the store at path with the given clock
// (nil: a new Clock). Where path holds no database yet, it starts as a copy
// of one migrated once for the test binary (see migrated), which spares
// each test applying every migration again; migrating it then finds nothing
// left to do.
func MustOpenAt(tb testing.TB, path string, now func() time.Time) *store.Store {
	tb.Helper()
	if now == nil {
		now = NewClock(tb).Now
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		db, err := migrated()
		if err != nil {
			tb.Fatalf("migrating the stores' first database: %v", err)
		}
		if err := os.WriteFile(path, db, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	s, err := store.Open(store.Options{Path: path, Migrations: migrations.FS, Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return s
}

// migrated returns a database with every migration applied, made once per
// test binary and kept in memory: a consistent copy (VACUUM INTO) of a
// store migrated in a temporary folder, which is then removed.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "recur-storetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := store.Open(store.Options{Path: filepath.Join(dir, "recur.db"), Migrations: migrations.FS})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Migrate(ctx); err != nil {
		return nil, err
	}
	copied := filepath.Join(dir, "migrated.db")
	if err := s.Backup(ctx, copied); err != nil {
		return nil, err
	}
	return os.ReadFile(copied)
})

// MustCreateUser creates a user with the address.
func MustCreateUser(tb testing.TB, s *store.Store, email string) *store.User {
	tb.Helper()
	u := &store.User{Email: email, Name: "Test " + email}
	if err := s.CreateUser(context.Background(), u); err != nil {
		tb.Fatal(err)
	}
	return u
}

// MustCreateToken creates a token for the user with the scopes and returns its plaintext.
func MustCreateToken(tb testing.TB, s *store.Store, userID string, scopes ...string) string {
	tb.Helper()
	if len(scopes) == 0 {
		scopes = []string{"*"}
	}
	plain, err := s.CreateToken(context.Background(), &store.Token{UserID: userID, Name: "test", Scopes: scopes})
	if err != nil {
		tb.Fatal(err)
	}
	return plain
}

// CheapPasswords makes the passwords this test binary hashes from now on
// cheap to hash and to check: argon2id over 64 KiB in one pass, instead of
// store.CurrentPasswordParams' 19 MiB in two, which costs each sign-in by
// password tens of milliseconds of a core. The TestMain of a package whose
// tests sign in by password but are not about the hash calls it before
// the tests run. Each hash names its own parameters, so checking one
// works the same way with either.
func CheapPasswords() {
	store.CurrentPasswordParams = store.PasswordParams{Memory: 64, Time: 1, Threads: 1}
}
