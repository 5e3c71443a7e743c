// Package storetest opens real SQLite stores in temporary folders for tests.
package storetest

import (
	"context"
	"path/filepath"
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
// (nil: a new Clock).
func MustOpenAt(tb testing.TB, path string, now func() time.Time) *store.Store {
	tb.Helper()
	if now == nil {
		now = NewClock(tb).Now
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
