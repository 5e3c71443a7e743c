package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// Each user runs one search at a time, and the instance only a few at once:
// a second search of the same user is ETOOMANY at once; another user's
// waits for a slot and is ETOOMANY when none frees in time.
func TestSearchCapturesGate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	mustCapture(t, s, ana.ID, "The boss again.")
	mustCapture(t, s, ben.ID, "The boss again.")
	s.SetSearchLimits(store.SearchBudget, 50*time.Millisecond)
	page := store.Page{Page: 1, Limit: 15}

	release, err := s.HoldSearch(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []*store.User{ana, ben} {
		if _, _, err := s.SearchCaptures(ctx, u.ID, "boss", page); store.ErrorCode(err) != store.ETOOMANY {
			t.Errorf("%s searching while ana's search holds every slot: %v, want ETOOMANY", u.Email, err)
		}
	}
	release()
	for _, u := range []*store.User{ana, ben} {
		if list, _, err := s.SearchCaptures(ctx, u.ID, "boss", page); err != nil || len(list) != 1 {
			t.Errorf("%s searching once the slots are free: %d found, %v", u.Email, len(list), err)
		}
	}
}

// A search that runs past its budget is stopped and answered EINVALID on q.
func TestSearchCapturesBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	mustCapture(t, s, ana.ID, "The boss again.")
	s.SetSearchLimits(time.Nanosecond, store.SearchWait)
	_, _, err := s.SearchCaptures(ctx, ana.ID, "boss", store.Page{Page: 1, Limit: 15})
	var e *store.Error
	if !errors.As(err, &e) || e.Code != store.EINVALID || e.Field != "q" {
		t.Fatalf("search past its budget: %v, want EINVALID on q", err)
	}
	s.SetSearchLimits(store.SearchBudget, store.SearchWait)
	if _, _, err := s.SearchCaptures(ctx, ana.ID, "boss", store.Page{Page: 1, Limit: 15}); err != nil {
		t.Fatalf("the next search within budget: %v", err)
	}
}

// Ping reads through a connection of its own: it answers while every
// reader of the pool and the writer are taken.
func TestPingWhilePoolsBusy(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := storetest.MustOpen(t)
	freeReaders, err := s.HoldReaders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer freeReaders()
	freeWriter, err := s.HoldWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer freeWriter()
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping with every reader and the writer taken: %v", err)
	}
}

// A write that finds no room is EFULL, and DiskFull says so until a write
// commits again.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	if err := s.LimitPages(ctx, 4); err != nil {
		t.Fatal(err)
	}
	text := string(make([]byte, 0)) + "A long entry that fills the database page after page. "
	for len(text) < 8000 {
		text += text
	}
	var err error
	for i := 0; i < 50 && err == nil; i++ {
		err = s.CreateCapture(ctx, &store.Capture{UserID: ana.ID, Original: text[:8000]})
	}
	if store.ErrorCode(err) != store.EFULL {
		t.Fatalf("writing into a full database: %v, want EFULL", err)
	}
	if msg := store.ErrorMessage(err); msg == "Server error." {
		t.Errorf("EFULL has no sentence of its own: %q", msg)
	}
	if !s.DiskFull() {
		t.Error("DiskFull is false after a write failed for lack of space")
	}
	if err := s.LimitPages(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateCapture(ctx, &store.Capture{UserID: ana.ID, Original: "Room again."}); err != nil {
		t.Fatal(err)
	}
	if s.DiskFull() {
		t.Error("DiskFull stays true after a write committed")
	}
}
