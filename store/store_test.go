package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	t.Run("PragmasOnEveryConnection", func(t *testing.T) {
		s := storetest.MustOpen(t)
		ctx := context.Background()
		// Many concurrent reads force the pool to open several connections;
		// each must enforce foreign keys, which the DSN guarantees.
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Settings(ctx, "nobody"); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// A token for a user that does not exist breaks a foreign key.
		_, err := s.CreateToken(ctx, &store.Token{UserID: "missing", Name: "x", Scopes: []string{"*"}})
		if got, want := store.ErrorCode(err), store.ENOTFOUND; got != want {
			t.Fatalf("code = %q, want %q (err %v)", got, want, err)
		}
	})

	t.Run("MigrateDownAndUp", func(t *testing.T) {
		s := storetest.MustOpen(t)
		ctx := context.Background()
		list, err := s.MigrationStatuses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range list {
			if m.AppliedAt == nil {
				t.Fatalf("migration %d not applied", m.Version)
			}
		}
		for range list {
			if _, err := s.MigrateDown(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if applied, err := s.Migrate(ctx); err != nil || len(applied) != len(list) {
			t.Fatalf("re-applied %v, %v; want %d migrations", applied, err, len(list))
		}
	})

	t.Run("Backup", func(t *testing.T) {
		s := storetest.MustOpen(t)
		ctx := context.Background()
		u := storetest.MustCreateUser(t, s, "a@example.com")
		path := filepath.Join(t.TempDir(), "copy.db")
		if err := s.Backup(ctx, path); err != nil {
			t.Fatal(err)
		}
		c := storetest.MustOpenAt(t, path, nil)
		got, err := c.FindUserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Email != u.Email {
			t.Fatalf("email = %q, want %q", got.Email, u.Email)
		}
	})
}

func TestUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)

	t.Run("OK", func(t *testing.T) {
		u := &store.User{Email: " Ana@Example.com ", Name: "Ana"}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		got, err := s.FindUserByEmail(ctx, "ana@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != u.ID || got.Email != "ana@example.com" {
			t.Fatalf("found %+v, want id %s", got, u.ID)
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		err := s.CreateUser(ctx, &store.User{Email: "ANA@example.com"})
		var e *store.Error
		if !errors.As(err, &e) || e.Code != store.ECONFLICT || e.Field != "email" {
			t.Fatalf("err = %v, want conflict on email", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, email := range []string{"", "not-an-address", "Ana <ana@example.com>"} {
			err := s.CreateUser(ctx, &store.User{Email: email})
			if got, want := store.ErrorCode(err), store.EINVALID; got != want {
				t.Errorf("CreateUser(%q) code = %q, want %q", email, got, want)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := s.FindUserByID(ctx, "nope")
		if got, want := store.ErrorCode(err), store.ENOTFOUND; got != want {
			t.Fatalf("code = %q, want %q", got, want)
		}
	})
	t.Run("Password", func(t *testing.T) {
		hash, err := store.HashPassword("correct horse")
		if err != nil {
			t.Fatal(err)
		}
		u := store.User{PasswordHash: hash}
		if !u.PasswordMatches("correct horse") {
			t.Fatal("the right password does not match")
		}
		if u.PasswordMatches("correct horsE") {
			t.Fatal("a wrong password matches")
		}
		if (&store.User{}).PasswordMatches("") {
			t.Fatal("an account without a password matches the empty password")
		}
		if _, err := store.HashPassword("short"); store.ErrorCode(err) != store.EINVALID {
			t.Fatalf("short password: err = %v, want invalid", err)
		}
	})
}

func TestToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "recur.db"), clock)
	u := storetest.MustCreateUser(t, s, "t@example.com")

	t.Run("OK", func(t *testing.T) {
		plain := storetest.MustCreateToken(t, s, u.ID, "captures:read")
		tok, user, err := s.Authenticate(ctx, plain)
		if err != nil {
			t.Fatal(err)
		}
		if user.ID != u.ID || !tok.Can("captures:read") || tok.Can("captures:write") {
			t.Fatalf("token %+v for %s", tok, user.ID)
		}
		if tok.LastUsedAt == nil || !tok.LastUsedAt.Equal(now) {
			t.Fatalf("last_used_at = %v, want %v", tok.LastUsedAt, now)
		}
	})
	t.Run("SecretNotStored", func(t *testing.T) {
		plain := storetest.MustCreateToken(t, s, u.ID)
		_, secret, _ := cutPipe(plain)
		path := filepath.Join(t.TempDir(), "copy.db")
		if err := s.Backup(ctx, path); err != nil {
			t.Fatal(err)
		}
		if fileContains(t, path, secret) {
			t.Fatal("the token's secret is in the database file")
		}
	})
	t.Run("ErrUnauthorized", func(t *testing.T) {
		expired := now.Add(-time.Second)
		tok := &store.Token{UserID: u.ID, Name: "old", Scopes: []string{"*"}, ExpiresAt: &expired}
		expiredPlain, err := s.CreateToken(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		revoked := storetest.MustCreateToken(t, s, u.ID)
		id, _, _ := cutPipe(revoked)
		if err := s.RevokeToken(ctx, u.ID, id); err != nil {
			t.Fatal(err)
		}
		good := storetest.MustCreateToken(t, s, u.ID)
		goodID, _, _ := cutPipe(good)
		for name, plain := range map[string]string{
			"Expired": expiredPlain, "Revoked": revoked, "Malformed": "garbage",
			"WrongSecret": goodID + "|wrong", "UnknownID": "00000000-0000-0000-0000-000000000000|x",
		} {
			if _, _, err := s.Authenticate(ctx, plain); store.ErrorCode(err) != store.EUNAUTHORIZED {
				t.Errorf("%s: err = %v, want unauthorized", name, err)
			}
		}
	})
	t.Run("RevokeOtherUsersToken", func(t *testing.T) {
		other := storetest.MustCreateUser(t, s, "other@example.com")
		plain := storetest.MustCreateToken(t, s, other.ID)
		id, _, _ := cutPipe(plain)
		if err := s.RevokeToken(ctx, u.ID, id); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("err = %v, want not found", err)
		}
		if _, _, err := s.Authenticate(ctx, plain); err != nil {
			t.Fatalf("the other user's token stopped working: %v", err)
		}
	})
}

func TestSetting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "s@example.com")

	t.Run("Defaults", func(t *testing.T) {
		list, err := s.Settings(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Setting{{Key: "app_locale", Value: "en"}, {Key: "timezone", Value: "UTC"}}
		if len(list) != len(want) || list[0] != want[0] || list[1] != want[1] {
			t.Fatalf("settings = %v, want %v", list, want)
		}
	})
	t.Run("OK", func(t *testing.T) {
		for _, st := range []store.Setting{{Key: "timezone", Value: "Asia/Kathmandu"}, {Key: "app_locale", Value: "pt-br"}} {
			if err := s.PutSetting(ctx, u.ID, &st); err != nil {
				t.Fatal(err)
			}
		}
		if v, _ := s.SettingValue(ctx, u.ID, "app_locale"); v != "pt-BR" {
			t.Fatalf("app_locale = %q, want canonical pt-BR", v)
		}
		if v, _ := s.SettingValue(ctx, u.ID, "timezone"); v != "Asia/Kathmandu" {
			t.Fatalf("timezone = %q", v)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, c := range []struct{ key, value, field string }{
			{"timezone", "Mars/Olympus", "value"},
			{"timezone", "Local", "value"},
			{"timezone", "", "value"},
			{"app_locale", "not a tag!", "value"},
			{"colour", "blue", "key"},
		} {
			err := s.PutSetting(ctx, u.ID, &store.Setting{Key: c.key, Value: c.value})
			var e *store.Error
			if !errors.As(err, &e) || e.Code != store.EINVALID || e.Field != c.field {
				t.Errorf("PutSetting(%s=%q) = %v, want invalid %s", c.key, c.value, err, c.field)
			}
		}
	})
}
