package store_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// mustSession stores a browser session holding values, as the server's
// session manager does, and returns its token.
func mustSession(t *testing.T, s *store.Store, token string, values map[string]any) string {
	t.Helper()
	expiry := s.Now().Add(time.Hour)
	b, err := scs.GobCodec{}.Encode(expiry, values)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sessions().CommitCtx(context.Background(), token, b, expiry); err != nil {
		t.Fatal(err)
	}
	return token
}

func sessionExists(t *testing.T, s *store.Store, token string) bool {
	t.Helper()
	_, found, err := s.Sessions().FindCtx(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestListUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	if list, err := s.ListUsers(ctx); err != nil || len(list) != 0 {
		t.Fatalf("no users: %v %v", list, err)
	}
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	for i := 0; i < 3; i++ {
		if err := s.CreateCapture(ctx, &store.Capture{UserID: ana.ID, Original: "Entry."}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetTwoFactorSecret(ctx, ben.ID, "sealed"); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(list), 2; got != want {
		t.Fatalf("%d users, want %d", got, want)
	}
	if got, want := list[0].Email, ana.Email; got != want {
		t.Errorf("first user %q, want the oldest, %q", got, want)
	}
	if got, want := list[0].Captures, 3; got != want {
		t.Errorf("ana has %d captures, want %d", got, want)
	}
	if got, want := list[1].Captures, 0; got != want {
		t.Errorf("ben has %d captures, want %d", got, want)
	}
	if list[1].ID != ben.ID || list[1].Name != ben.Name || list[1].CreatedAt.IsZero() {
		t.Errorf("ben's row is %+v", list[1])
	}
}

func TestDeleteUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	for _, u := range []*store.User{ana, ben} {
		if err := s.CreateCapture(ctx, &store.Capture{UserID: u.ID, Original: "Entry."}); err != nil {
			t.Fatal(err)
		}
		storetest.MustCreateToken(t, s, u.ID)
		if _, err := s.CreateApp(ctx, &store.App{UserID: u.ID, Name: "Phone", Scopes: []string{"captures:write"}}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: "Europe/Lisbon"}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateFeedback(ctx, &store.Feedback{UserID: u.ID, Body: "Hello."}); err != nil {
			t.Fatal(err)
		}
	}
	anaSignedIn := mustSession(t, s, "ana-1", map[string]any{"user_id": ana.ID})
	anaPending := mustSession(t, s, "ana-2", map[string]any{"pending_user_id": ana.ID, "remember": true})
	bens := mustSession(t, s, "ben-1", map[string]any{"user_id": ben.ID})
	anonymous := mustSession(t, s, "anon", map[string]any{"csrf": "x"})

	t.Run("OK", func(t *testing.T) {
		r, err := s.DeleteUser(ctx, ana.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := store.UserRemoval{Captures: 1, Tokens: 1, Apps: 1, Sessions: 2, Settings: 1, Feedback: 1}
		if *r != want {
			t.Errorf("removed %+v, want %+v", *r, want)
		}
		if _, err := s.FindUserByID(ctx, ana.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("ana is still found: %v", err)
		}
		for _, token := range []string{anaSignedIn, anaPending} {
			if sessionExists(t, s, token) {
				t.Errorf("ana's session %s is left", token)
			}
		}
		for _, token := range []string{bens, anonymous} {
			if !sessionExists(t, s, token) {
				t.Errorf("session %s of someone else went", token)
			}
		}
		list, _ := s.ListUsers(ctx)
		if len(list) != 1 || list[0].ID != ben.ID || list[0].Captures != 1 {
			t.Errorf("left %+v, want ben with his capture", list)
		}
		if tokens, _ := s.ListTokens(ctx, ben.ID); len(tokens) != 2 {
			t.Errorf("ben has %d tokens, want his own and his app's", len(tokens))
		}
		if fb, _ := s.ListAllFeedback(ctx); len(fb) != 1 || fb[0].UserID != ben.ID {
			t.Errorf("feedback left: %+v", fb)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := s.DeleteUser(ctx, ana.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("err = %v, want ENOTFOUND", err)
		}
	})
}

func TestDeleteUserSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	a1 := mustSession(t, s, "a1", map[string]any{"user_id": ana.ID})
	a2 := mustSession(t, s, "a2", map[string]any{"pending_user_id": ana.ID})
	b1 := mustSession(t, s, "b1", map[string]any{"user_id": ben.ID})
	if err := s.Sessions().CommitCtx(ctx, "junk", []byte("not gob"), s.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteUserSessions(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n, 2; got != want {
		t.Errorf("ended %d sessions, want %d", got, want)
	}
	if sessionExists(t, s, a1) || sessionExists(t, s, a2) {
		t.Error("a session of ana is left")
	}
	if !sessionExists(t, s, b1) || !sessionExists(t, s, "junk") {
		t.Error("a session of someone else went")
	}
	if n, err := s.DeleteUserSessions(ctx, ana.ID); err != nil || n != 0 {
		t.Errorf("again: %d %v, want 0", n, err)
	}
}

func TestListTokensAndRevokeByID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	s := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "recur.db"), func() time.Time { return now })
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	expires := now.Add(time.Hour)
	plain, err := s.CreateToken(ctx, &store.Token{UserID: ana.ID, Name: "laptop", Scopes: []string{"captures:read", "profile:read"}, ExpiresAt: &expires})
	if err != nil {
		t.Fatal(err)
	}
	laptop, _, _ := cutPipe(plain)
	now = now.Add(time.Second)
	if _, err := s.CreateApp(ctx, &store.App{UserID: ana.ID, Name: "Phone", Scopes: []string{"captures:write"}}); err != nil {
		t.Fatal(err)
	}
	bens, _, _ := cutPipe(storetest.MustCreateToken(t, s, ben.ID))
	if _, _, err := s.Authenticate(ctx, plain); err != nil {
		t.Fatal(err)
	}

	t.Run("List", func(t *testing.T) {
		list, err := s.ListTokens(ctx, ana.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(list), 2; got != want {
			t.Fatalf("%d tokens, want %d", got, want)
		}
		if got, want := list[0].Name, "Phone"; got != want || !list[0].App {
			t.Errorf("newest is %q (app %v), want the app's token %q", got, list[0].App, want)
		}
		l := list[1]
		if l.ID != laptop || l.App || len(l.Scopes) != 2 || l.ExpiresAt == nil || !l.ExpiresAt.Equal(expires) || l.LastUsedAt == nil {
			t.Errorf("laptop token listed as %+v", l)
		}
	})
	t.Run("Revoke", func(t *testing.T) {
		got, err := s.RevokeTokenByID(ctx, laptop)
		if err != nil {
			t.Fatal(err)
		}
		if got.UserID != ana.ID || got.Name != "laptop" || got.RevokedAt == nil {
			t.Errorf("revoked %+v", got)
		}
		if _, _, err := s.Authenticate(ctx, plain); store.ErrorCode(err) != store.EUNAUTHORIZED {
			t.Errorf("the revoked token authenticates: %v", err)
		}
		if list, _ := s.ListTokens(ctx, ana.ID); len(list) != 1 {
			t.Errorf("%d tokens listed after the revoke, want 1", len(list))
		}
		if list, _ := s.ListTokens(ctx, ben.ID); len(list) != 1 || list[0].ID != bens {
			t.Errorf("ben's tokens: %+v", list)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, id := range []string{laptop, "0190e7a0-0000-7000-8000-000000000000", ""} {
			if _, err := s.RevokeTokenByID(ctx, id); store.ErrorCode(err) != store.ENOTFOUND {
				t.Errorf("revoke %q: %v, want ENOTFOUND", id, err)
			}
		}
	})
}

func TestListAllFeedback(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	s := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "recur.db"), func() time.Time { return now })
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	for _, f := range []struct {
		user *store.User
		body string
	}{{ana, "one"}, {ben, "two"}, {ana, "three"}} {
		if err := s.CreateFeedback(ctx, &store.Feedback{UserID: f.user.ID, Body: f.body}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(-time.Minute) // later notes are older, so order comes from the time, not the id
	}
	list, err := s.ListAllFeedback(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range list {
		got = append(got, f.Body+" "+f.Email)
	}
	if want := []string{"one ana@example.com", "two ben@example.com", "three ana@example.com"}; !slices.Equal(got, want) {
		t.Errorf("feedback %v, want %v", got, want)
	}
}
