package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// The hot queries (authentication, a session's user, list pages, a
// capture's read, the claim) are prepared once and then reused, also inside
// transactions on a pool of one reader, where preparing on the pool from
// within the transaction would wait for ever; closing the store closes them.
func TestHotStatementsPreparedOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "recur.db"), Migrations: migrations.FS, Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	u := storetest.MustCreateUser(t, s, "ana@example.com")
	plain := storetest.MustCreateToken(t, s, u.ID)
	c := &store.Capture{UserID: u.ID, Original: "An entry."}
	if err := s.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	hot := []struct {
		name string
		call func() error
	}{
		{"authenticate", func() error { _, _, err := s.Authenticate(ctx, plain); return err }},
		{"user", func() error { _, err := s.FindUserByID(ctx, u.ID); return err }},
		{"session", func() error { _, _, err := s.Sessions().FindCtx(ctx, "no-such-session"); return err }},
		{"captures", func() error { _, _, err := s.ListCaptures(ctx, u.ID, store.Page{Page: 1, Limit: 15}); return err }},
		{"patterns", func() error { _, _, err := s.ListPatterns(ctx, u.ID, store.Page{Page: 1, Limit: 15}); return err }},
		{"capture", func() error { _, err := s.FindCapture(ctx, u.ID, c.ID); return err }},
		{"claim", func() error {
			got, err := s.ClaimCapture(ctx)
			if err != nil {
				return err
			}
			return s.RequeueCapture(ctx, got.ID, s.Now(), false)
		}},
	}
	for _, h := range hot {
		before := len(s.PreparedStatements())
		if err := h.call(); err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if len(s.PreparedStatements()) == before {
			t.Errorf("%s prepared no statement", h.name)
		}
	}
	first := s.PreparedStatements()
	for range 3 {
		for _, h := range hot {
			if err := h.call(); err != nil {
				t.Fatalf("%s again: %v", h.name, err)
			}
		}
	}
	again := s.PreparedStatements()
	if len(again) != len(first) {
		t.Errorf("%d statements after more calls, %d after the first", len(again), len(first))
	}
	for q, st := range first {
		if again[q] != st {
			t.Errorf("prepared again: %s", q)
		}
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for q, st := range first {
		if _, err := st.ExecContext(ctx); err == nil {
			t.Errorf("still open after Close: %s", q)
		}
	}
}
