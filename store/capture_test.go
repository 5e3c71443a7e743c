package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func mustCapture(t *testing.T, s *store.Store, userID, text string) *store.Capture {
	t.Helper()
	c := &store.Capture{UserID: userID, Original: text}
	if err := s.CreateCapture(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClaimCapture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	a1 := mustCapture(t, s, ana.ID, "first")
	mustCapture(t, s, ana.ID, "second")
	b1 := mustCapture(t, s, ben.ID, "bens")

	t.Run("OldestFirst", func(t *testing.T) {
		c, err := s.ClaimCapture(ctx)
		if err != nil || c.ID != a1.ID || c.Status != store.StatusProcessing {
			t.Fatalf("claimed %+v, %v; want ana's first capture, processing", c, err)
		}
	})
	t.Run("OneRunPerUser", func(t *testing.T) {
		c, err := s.ClaimCapture(ctx)
		if err != nil || c.ID != b1.ID {
			t.Fatalf("claimed %+v, %v; want ben's capture while ana's first is processing", c, err)
		}
		if _, err := s.ClaimCapture(ctx); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("claimed ana's second capture while her first is processing: %v", err)
		}
	})
	t.Run("Backoff", func(t *testing.T) {
		if err := s.RequeueCapture(ctx, a1.ID, s.Now().Add(time.Hour), true); err != nil {
			t.Fatal(err)
		}
		c, err := s.ClaimCapture(ctx)
		if err != nil || c.Original != "second" {
			t.Fatalf("claimed %+v, %v; want ana's second, the first waits an hour", c, err)
		}
	})
	t.Run("RequeueProcessing", func(t *testing.T) {
		n, err := s.RequeueProcessing(ctx)
		if err != nil || n != 2 {
			t.Fatalf("requeued %d, %v; want the 2 processing", n, err)
		}
		q, _ := s.QueueCounts(ctx)
		if q.Processing != 0 || q.Queued != 3 {
			t.Fatalf("queue %+v", q)
		}
	})
}

func TestCommitAndDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "u@example.com")
	other := storetest.MustCreateUser(t, s, "o@example.com")
	text := "Boss shouted. I ran."
	commit := func(c *store.Capture, tags ...store.NewTag) error {
		if _, err := s.ClaimCapture(ctx); err != nil {
			t.Fatal(err)
		}
		return s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Translated: c.Original, Language: "en",
			Segments: []store.AnalysedSegment{{Start: 0, End: 13, Tags: tags}}})
	}
	trigger := store.NewTag{Type: store.TagTrigger, Name: "boss shouting", NewCategory: "criticism at work"}
	person := store.NewTag{Type: store.TagPerson, Name: "my boss"}

	c1 := mustCapture(t, s, u.ID, text)
	if err := commit(c1, trigger, person); err != nil {
		t.Fatal(err)
	}
	c2 := mustCapture(t, s, u.ID, text)
	if err := commit(c2, store.NewTag{Type: store.TagTrigger, Name: "Boss Shouting"}, person); err != nil {
		t.Fatal(err)
	}
	got, err := s.FindCapture(ctx, u.ID, c2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Segments) != 1 || got.Segments[0].Text != "Boss shouted." || len(got.Segments[0].Tags) != 2 {
		t.Fatalf("capture = %+v", got)
	}
	if tg := got.Segments[0].Tags[0]; tg.Name != "boss shouting" || tg.Category == nil || tg.Category.Name != "criticism at work" {
		t.Fatalf("the same trigger in another case became %+v; want the existing tag and category", tg)
	}

	t.Run("ErrNotASlice", func(t *testing.T) {
		c := mustCapture(t, s, other.ID, "short")
		if _, err := s.ClaimCapture(ctx); err != nil {
			t.Fatal(err)
		}
		err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: other.ID, Translated: "short",
			Segments: []store.AnalysedSegment{{Start: 2, End: 99}}})
		if store.ErrorCode(err) != store.EINVALID {
			t.Fatalf("err = %v, want invalid", err)
		}
		if again, _ := s.FindCapture(ctx, other.ID, c.ID); again.Status != store.StatusProcessing {
			t.Fatalf("a refused commit changed the status to %s", again.Status)
		}
	})
	t.Run("ErrDeleteOthers", func(t *testing.T) {
		if err := s.DeleteCapture(ctx, other.ID, c1.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("err = %v, want not found", err)
		}
	})
	t.Run("DeleteKeepsShared", func(t *testing.T) {
		if err := s.DeleteCapture(ctx, u.ID, c1.ID); err != nil {
			t.Fatal(err)
		}
		tags, _ := s.Tags(ctx, u.ID, store.TagTypes...)
		if len(tags) != 2 {
			t.Fatalf("tags after deleting one of two captures = %v, want both kept", tags)
		}
	})
	t.Run("DeleteLastLeavesNothing", func(t *testing.T) {
		if err := s.DeleteCapture(ctx, u.ID, c2.ID); err != nil {
			t.Fatal(err)
		}
		tags, _ := s.Tags(ctx, u.ID, store.TagTypes...)
		cats, _ := s.Categories(ctx, u.ID, store.TagTrigger)
		if len(tags) != 0 || len(cats) != 0 {
			t.Fatalf("left behind %v and %v", tags, cats)
		}
	})
}

func TestCaptureValidate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		c     store.Capture
		field string
	}{
		{"Blank", store.Capture{Original: "  ", OccurredAt: now}, "text"},
		{"TooLong", store.Capture{Original: string(make([]rune, store.CaptureMaxLength+1)), OccurredAt: now}, "text"},
		{"FarFuture", store.Capture{Original: "x", OccurredAt: now.Add(25 * time.Hour)}, "occurred_at"},
		{"AncientPast", store.Capture{Original: "x", OccurredAt: time.Date(1850, 1, 1, 0, 0, 0, 0, time.UTC)}, "occurred_at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.c.Validate(now)
			var e *store.Error
			if !asError(err, &e) || e.Field != c.field {
				t.Fatalf("err = %v, want invalid %s", err, c.field)
			}
		})
	}
	ok := store.Capture{Original: "fine", OccurredAt: now.Add(23 * time.Hour)}
	if err := ok.Validate(now); err != nil {
		t.Fatalf("a capture 23 hours ahead was refused: %v", err)
	}
}
