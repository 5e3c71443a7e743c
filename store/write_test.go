package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// waiting says how many writes wait, whether one leads and whether Close
// began, for a test that gave up waiting on them.
func waiting(s *store.Store) func() string {
	return func() string {
		n, leading, closing := s.CreatesWaiting()
		return fmt.Sprintf("%d writes wait; one leads: %v; closing: %v", n, leading, closing)
	}
}

// createAll starts a CreateCapture for each capture and returns a channel
// that receives each outcome, in any order, with the capture it was for.
func createAll(s *store.Store, captures []*store.Capture) <-chan createOutcome {
	out := make(chan createOutcome, len(captures))
	for _, c := range captures {
		go func() { out <- createOutcome{c, s.CreateCapture(context.Background(), c)} }()
	}
	return out
}

type createOutcome struct {
	c   *store.Capture
	err error
}

// receive takes n outcomes from ch, failing the test if they do not all
// come within ten seconds.
func receive(t *testing.T, ch <-chan createOutcome, n int) []createOutcome {
	t.Helper()
	deadline := time.After(10 * time.Second)
	var got []createOutcome
	for range n {
		select {
		case o := <-ch:
			got = append(got, o)
		case <-deadline:
			t.Fatalf("only %d of %d writes were answered", len(got), n)
		}
	}
	return got
}

func newCaptures(userID string, n int) []*store.Capture {
	out := make([]*store.Capture, n)
	for i := range out {
		out[i] = &store.Capture{UserID: userID, Original: fmt.Sprintf("entry %d", i)}
	}
	return out
}

// queueBehindLeader holds the writer, starts one write that leads and
// waits for the writer, then starts the rest, which all wait behind it to
// be committed together. It returns the outcomes and the release.
func queueBehindLeader(t *testing.T, s *store.Store, first *store.Capture, rest []*store.Capture) (<-chan createOutcome, <-chan createOutcome, func()) {
	t.Helper()
	release, err := s.HoldWriter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lead := createAll(s, []*store.Capture{first})
	wait.Eventually(t, 5*time.Second, "the first write leads", func() bool { n, leading, _ := s.CreatesWaiting(); return leading && n == 0 }, waiting(s))
	others := createAll(s, rest)
	wait.Eventually(t, 5*time.Second, "the others wait", func() bool { n, _, _ := s.CreatesWaiting(); return n == len(rest) }, waiting(s))
	return lead, others, release
}

func TestCreateCaptureTogether(t *testing.T) {
	t.Parallel()
	t.Run("OK", func(t *testing.T) {
		s := storetest.MustOpen(t)
		u := storetest.MustCreateUser(t, s, "alice@example.com")
		const writers, each = 24, 10
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		ids := make(chan string, writers*each)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					c := &store.Capture{UserID: u.ID, Original: fmt.Sprintf("writer %d entry %d", w, i)}
					if err := s.CreateCapture(context.Background(), c); err != nil {
						errs <- err
						continue
					}
					// Acknowledged means committed: a reader sees it now.
					got, err := s.FindCapture(context.Background(), u.ID, c.ID)
					if err != nil {
						errs <- fmt.Errorf("read after create: %w", err)
						continue
					}
					if got.Original != c.Original || got.Status != store.StatusQueued {
						errs <- fmt.Errorf("read %q %s, want %q queued", got.Original, got.Status, c.Original)
					}
					ids <- c.ID
				}
			}()
		}
		wg.Wait()
		close(errs)
		close(ids)
		for err := range errs {
			t.Error(err)
		}
		seen := map[string]bool{}
		for id := range ids {
			if seen[id] {
				t.Errorf("id %s given twice", id)
			}
			seen[id] = true
		}
		_, total, err := s.ListCaptures(context.Background(), u.ID, store.Page{Page: 1, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := total, writers*each; got != want {
			t.Errorf("stored %d captures, want %d", got, want)
		}
	})

	t.Run("OneFailsAlone", func(t *testing.T) {
		s := storetest.MustOpen(t)
		u := storetest.MustCreateUser(t, s, "alice@example.com")
		rest := newCaptures(u.ID, 8)
		// Valid as an entry, but its user does not exist: only the insert fails.
		rest[3].UserID = "0190a5d2-0000-7000-8000-000000000000"
		lead, others, release := queueBehindLeader(t, s, newCaptures(u.ID, 1)[0], rest)
		release()
		receive(t, lead, 1)
		for _, o := range receive(t, others, len(rest)) {
			if o.c == rest[3] {
				if got, want := store.ErrorCode(o.err), store.ENOTFOUND; got != want {
					t.Errorf("entry of a missing user: %v, want %s", o.err, want)
				}
				continue
			}
			if o.err != nil {
				t.Errorf("%q: %v", o.c.Original, o.err)
			} else if _, err := s.FindCapture(context.Background(), u.ID, o.c.ID); err != nil {
				t.Errorf("%q acknowledged but not stored: %v", o.c.Original, err)
			}
		}
	})

	t.Run("InvalidAmongWaiting", func(t *testing.T) {
		s := storetest.MustOpen(t)
		u := storetest.MustCreateUser(t, s, "alice@example.com")
		lead, others, release := queueBehindLeader(t, s, newCaptures(u.ID, 1)[0], newCaptures(u.ID, 5))
		// Refused before it joins the waiting ones: answered while the
		// writer is still held.
		blank := receive(t, createAll(s, []*store.Capture{{UserID: u.ID, Original: " \n "}}), 1)[0]
		if got, want := store.ErrorCode(blank.err), store.EINVALID; got != want {
			t.Errorf("blank entry: %v, want %s", blank.err, want)
		}
		release()
		for _, o := range append(receive(t, lead, 1), receive(t, others, 5)...) {
			if o.err != nil {
				t.Errorf("%q: %v", o.c.Original, o.err)
			}
		}
	})

	t.Run("CallerGone", func(t *testing.T) {
		s := storetest.MustOpen(t)
		u := storetest.MustCreateUser(t, s, "alice@example.com")
		lead, others, release := queueBehindLeader(t, s, newCaptures(u.ID, 1)[0], newCaptures(u.ID, 3))
		// A caller that hangs up while it waits is not written, and the
		// others are.
		ctx, cancel := context.WithCancel(context.Background())
		gone := &store.Capture{UserID: u.ID, Original: "never mind"}
		goneErr := make(chan error, 1)
		go func() { goneErr <- s.CreateCapture(ctx, gone) }()
		wait.Eventually(t, 5*time.Second, "the caller waits", func() bool { n, _, _ := s.CreatesWaiting(); return n == 4 }, waiting(s))
		cancel()
		release()
		for _, o := range append(receive(t, lead, 1), receive(t, others, 3)...) {
			if o.err != nil {
				t.Errorf("%q: %v", o.c.Original, o.err)
			}
		}
		if err := <-goneErr; !errors.Is(err, context.Canceled) {
			t.Errorf("caller gone: %v, want %v", err, context.Canceled)
		}
		if _, total, err := s.ListCaptures(context.Background(), u.ID, store.Page{Page: 1, Limit: 10}); err != nil || total != 4 {
			t.Errorf("stored %d captures (%v), want 4", total, err)
		}
	})

	t.Run("CloseWhileWaiting", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "recur.db")
		s := storetest.MustOpenAt(t, path, nil)
		u := storetest.MustCreateUser(t, s, "alice@example.com")
		first, rest := newCaptures(u.ID, 1)[0], newCaptures(u.ID, 6)
		lead, others, release := queueBehindLeader(t, s, first, rest)
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		wait.Eventually(t, 5*time.Second, "Close begins", func() bool { _, _, c := s.CreatesWaiting(); return c }, waiting(s))

		// A write after Close began is refused at once, even with the
		// writer still held.
		late := receive(t, createAll(s, newCaptures(u.ID, 1)), 1)[0]
		if got, want := store.ErrorCode(late.err), store.EINTERNAL; got != want {
			t.Errorf("write after Close: %v, want %s", late.err, want)
		}
		release()
		acknowledged := map[string]bool{}
		for _, o := range append(receive(t, lead, 1), receive(t, others, len(rest))...) {
			if o.err != nil {
				t.Errorf("%q waited when Close began and failed: %v", o.c.Original, o.err)
				continue
			}
			acknowledged[o.c.ID] = true
		}
		select {
		case err := <-closed:
			if err != nil {
				t.Errorf("Close: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not return")
		}

		again := storetest.MustOpenAt(t, path, nil)
		list, total, err := again.ListCaptures(context.Background(), u.ID, store.Page{Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := total, len(acknowledged); got != want {
			t.Errorf("stored %d captures after reopening, want the %d acknowledged", got, want)
		}
		for _, c := range list {
			delete(acknowledged, c.ID)
		}
		if len(acknowledged) > 0 {
			t.Errorf("%d acknowledged captures were lost", len(acknowledged))
		}
	})
}

// TestCreateCaptureKeepsText checks that an entry is stored exactly as
// written, whatever characters it holds, alone and committed with others.
func TestCreateCaptureKeepsText(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	texts := []string{
		"plain words",
		"quotes \" ' ` and a backslash \\ and a slash /",
		"<b>tags</b> & ampersands",
		"line\r\nbreaks\tand tabs",
		"a NUL \x00 inside, and \x01\x02\x03\x7f",
		"separators \u2028 \u2029 and a BOM \ufeff",
		"emoji 🙂 and 𝄞, combining e\u0301, right-to-left שלום",
		"\\u0041 is not A",
		`{"json": [1, 2]}`,
	}
	var captures []*store.Capture
	for _, text := range texts {
		captures = append(captures, &store.Capture{UserID: u.ID, Original: text})
	}
	for _, o := range receive(t, createAll(s, captures), len(captures)) {
		if o.err != nil {
			t.Errorf("%q: %v", o.c.Original, o.err)
			continue
		}
		got, err := s.FindCapture(context.Background(), u.ID, o.c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Original != o.c.Original {
			t.Errorf("stored %q, want %q", got.Original, o.c.Original)
		}
		if !got.OccurredAt.Equal(o.c.OccurredAt) || !got.CreatedAt.Equal(o.c.CreatedAt) || got.Origin != "text" || got.Status != store.StatusQueued {
			t.Errorf("stored %+v, want %+v", got, o.c)
		}
	}
}
