package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// sessionData encodes session values as scs does.
func sessionData(t *testing.T, values map[string]any) []byte {
	t.Helper()
	b, err := scs.GobCodec{}.Encode(time.Now().Add(time.Hour), values)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSessionOwners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	ss := s.Sessions()
	expiry := s.Now().Add(time.Hour)
	commit := func(token string, values map[string]any) {
		t.Helper()
		if err := ss.CommitCtx(ctx, token, sessionData(t, values), expiry); err != nil {
			t.Fatal(err)
		}
	}
	list := func(userID string) []store.Session {
		t.Helper()
		l, _, err := s.ListSessions(ctx, userID, store.Page{Page: 1, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}

	commit("anonymous", map[string]any{"csrf": "x"})
	commit("ana-1", map[string]any{store.SessionUserKey: ana.ID, store.SessionUserAgentKey: strings.Repeat("é", 300), store.SessionIPKey: "192.0.2.1"})
	commit("ben-1", map[string]any{store.SessionUserKey: ben.ID})
	got := list(ana.ID)
	if len(got) != 1 || got[0].Token != "ana-1" || got[0].IP != "192.0.2.1" {
		t.Fatalf("ana's sessions: %+v", got)
	}
	if n := len([]rune(got[0].UserAgent)); n != store.SessionUserAgentMaxLength {
		t.Errorf("user agent kept with %d characters, want %d", n, store.SessionUserAgentMaxLength)
	}
	id, created := got[0].ID, got[0].CreatedAt

	t.Run("IDStaysAcrossSaves", func(t *testing.T) {
		seen := s.Now().Add(time.Hour).Unix()
		commit("ana-1", map[string]any{store.SessionUserKey: ana.ID, store.SessionSeenKey: seen})
		again := list(ana.ID)
		if len(again) != 1 || again[0].ID != id || !again[0].CreatedAt.Equal(created) || again[0].LastSeenAt.Unix() != seen {
			t.Fatalf("after a save: %+v; want id %s, created %s, last seen %d", again, id, created, seen)
		}
	})
	t.Run("EndSession", func(t *testing.T) {
		if err := s.EndSession(ctx, ben.ID, id); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("ben ends ana's session: %v", err)
		}
		commit("ana-2", map[string]any{store.SessionUserKey: ana.ID})
		if err := s.EndSession(ctx, ana.ID, id); err != nil {
			t.Fatal(err)
		}
		if _, found, _ := ss.FindCtx(ctx, "ana-1"); found {
			t.Fatal("the ended session is still found")
		}
		if _, found, _ := ss.FindCtx(ctx, "ana-2"); !found {
			t.Fatal("ana's other session was ended too")
		}
	})
	t.Run("EndOtherSessions", func(t *testing.T) {
		commit("ana-3", map[string]any{store.SessionUserKey: ana.ID})
		if n, err := s.EndOtherSessions(ctx, ana.ID, "ana-3"); err != nil || n != 1 {
			t.Fatalf("ended %d, %v; want ana-2 alone", n, err)
		}
		for token, want := range map[string]bool{"ana-2": false, "ana-3": true, "ben-1": true, "anonymous": true} {
			if _, found, _ := ss.FindCtx(ctx, token); found != want {
				t.Errorf("%s found %v, want %v", token, found, want)
			}
		}
	})
	t.Run("UserGone", func(t *testing.T) {
		if _, err := s.DeleteUser(ctx, ben.ID); err != nil {
			t.Fatal(err)
		}
		if _, found, _ := ss.FindCtx(ctx, "ben-1"); found {
			t.Fatal("a deleted user's session is still found")
		}
		// A request of the deleted user that saves its session afterwards
		// leaves a session of no one, rather than failing.
		commit("ben-1", map[string]any{store.SessionUserKey: ben.ID})
		if l := list(ben.ID); len(l) != 0 {
			t.Fatalf("a deleted user has sessions: %+v", l)
		}
		if _, err := s.DeleteUser(ctx, ben.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("deleted twice: %v", err)
		}
	})
}

// A session saved before sessions knew their user keeps working after the
// migration, and is listed from its next save.
func TestSessionsBeforeOwners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recur.db")
	s, db := openBefore(t, path, 12)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	data := sessionData(t, map[string]any{store.SessionUserKey: ana.ID})
	if _, err := db.ExecContext(ctx, `INSERT INTO sessions (token, data, expiry) VALUES ('old', ?, ?)`,
		data, store.FormatTime(s.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.Sessions().FindCtx(ctx, "old"); err != nil || !found {
		t.Fatalf("the old session is lost: %v", err)
	}
	if err := s.Sessions().CommitCtx(ctx, "old", data, s.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	l, _, err := s.ListSessions(ctx, ana.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(l) != 1 || l[0].ID == "" {
		t.Fatalf("after its next save: %+v, %v", l, err)
	}
}
