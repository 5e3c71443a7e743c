package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func day(d int) time.Time { return time.Date(2025, 3, d, 9, 0, 0, 0, time.UTC) }

// settle claims the next capture and ends its run: committed, or failed.
func settle(t *testing.T, s *store.Store, fail bool) *store.Capture {
	t.Helper()
	ctx := context.Background()
	c, err := s.ClaimCapture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fail {
		err = s.FailCapture(ctx, c.ID)
	} else {
		err = s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Translated: c.Original, Language: "en"})
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestImportCaptures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	ben := storetest.MustCreateUser(t, s, "ben@example.com")
	entries := []store.ImportEntry{
		{OccurredAt: day(3), Text: "third", Source: "entry 3"},
		{OccurredAt: day(1), Text: "first", Source: "entry 1"},
		{OccurredAt: day(2), Text: "second", Source: "entry 2"},
	}
	res, err := s.ImportCaptures(ctx, ana.ID, "Import of test", entries)
	if err != nil {
		t.Fatal(err)
	}
	b := res.Batch
	if res.Imported != 3 || res.Duplicates != 0 || b.Total != 3 || b.Pending != 3 || b.Progress() != 0 || b.FinishedAt != nil {
		t.Fatalf("import: %+v, batch %+v", res, b)
	}

	t.Run("WrittenNowGoesFirst", func(t *testing.T) {
		c := mustCapture(t, s, ana.ID, "written during the import")
		if got := settle(t, s, false); got.ID != c.ID {
			t.Fatalf("claimed %q first, want the entry written now", got.Original)
		}
	})
	t.Run("OldestFirstAndCounted", func(t *testing.T) {
		if got := settle(t, s, false); got.Original != "first" || got.Origin != store.OriginImport || !got.OccurredAt.Equal(day(1)) {
			t.Fatalf("claimed %+v, want the oldest imported entry", got)
		}
		if got := settle(t, s, true); got.Original != "second" {
			t.Fatalf("claimed %q, want second", got.Original)
		}
		b, err := s.FindJobBatch(ctx, ana.ID, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if b.Processed != 1 || b.Failed != 1 || b.Pending != 1 || b.Progress() != 66 || b.FinishedAt != nil {
			t.Fatalf("batch midway: %+v", b)
		}
	})
	t.Run("DeletedBeforeItsRunCountsFailedAndFinishes", func(t *testing.T) {
		list, _, _ := s.ListCaptures(ctx, ana.ID, store.Page{Page: 1, Limit: 10})
		for _, c := range list {
			if c.Original == "third" {
				if err := s.DeleteCapture(ctx, ana.ID, c.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		b, _ := s.FindJobBatch(ctx, ana.ID, b.ID)
		if b.Failed != 2 || b.Pending != 0 || b.Progress() != 100 || b.FinishedAt == nil {
			t.Fatalf("batch after delete: %+v", b)
		}
	})
	t.Run("AgainMakesNoDuplicates", func(t *testing.T) {
		res, err := s.ImportCaptures(ctx, ana.ID, "again", entries)
		if err != nil {
			t.Fatal(err)
		}
		// "third" was deleted, so it comes back; the other two are here.
		if res.Imported != 1 || res.Duplicates != 2 || res.Batch.Total != 1 {
			t.Fatalf("second import: %+v %+v", res, res.Batch)
		}
		res, err = s.ImportCaptures(ctx, ana.ID, "once more", entries)
		if err != nil || res.Imported != 0 || res.Batch.FinishedAt == nil || res.Batch.Progress() != 100 {
			t.Fatalf("third import: %+v %+v %v; want nothing new and a finished empty batch", res, res.Batch, err)
		}
	})
	t.Run("OtherUsersBatchIsNotFound", func(t *testing.T) {
		if _, err := s.FindJobBatch(ctx, ben.ID, b.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatalf("ben read ana's batch: %v", err)
		}
	})
	t.Run("BadEntryImportsNothing", func(t *testing.T) {
		before, _, _ := s.ListCaptures(ctx, ben.ID, store.Page{Page: 1, Limit: 10})
		_, err := s.ImportCaptures(ctx, ben.ID, "bad", []store.ImportEntry{
			{OccurredAt: day(1), Text: "fine", Source: "entry 1"},
			{OccurredAt: day(2), Text: strings.Repeat("x", store.CaptureMaxLength+1), Source: "entry 2"},
		})
		var e *store.Error
		if !asError(err, &e) || e.Field != "file" || !strings.Contains(e.Message, "entry 2") {
			t.Fatalf("err = %v; want EINVALID under file naming entry 2", err)
		}
		after, _, _ := s.ListCaptures(ctx, ben.ID, store.Page{Page: 1, Limit: 10})
		if len(after) != len(before) {
			t.Fatalf("a failed import left %d captures", len(after)-len(before))
		}
	})
}

func TestReanalyse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	ana := storetest.MustCreateUser(t, s, "ana@example.com")
	for _, text := range []string{"one", "two", "three"} {
		mustCapture(t, s, ana.ID, text)
		settle(t, s, text == "three")
	}
	first, err := s.Reanalyse(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	if first.Total != 3 || first.Pending != 3 {
		t.Fatalf("re-analysis: %+v", first)
	}
	if q, _ := s.QueueCounts(ctx); q.Queued != 3 || q.Failed != 0 {
		t.Fatalf("queue after re-analysis: %+v; want every capture queued, the failed one too", q)
	}
	settle(t, s, false)
	second, err := s.Reanalyse(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := s.FindJobBatch(ctx, ana.ID, first.ID)
	if old.CancelledAt == nil || old.Processed != 1 || old.Pending != 0 || old.Cancelled != 2 {
		t.Fatalf("earlier re-analysis: %+v; want it cancelled with its pending jobs", old)
	}
	if second.Total != 3 || second.Pending != 3 {
		t.Fatalf("new re-analysis: %+v", second)
	}
	for range 3 {
		settle(t, s, false)
	}
	second, _ = s.FindJobBatch(ctx, ana.ID, second.ID)
	if second.Processed != 3 || second.FinishedAt == nil {
		t.Fatalf("re-analysis at the end: %+v", second)
	}
	if old, _ = s.FindJobBatch(ctx, ana.ID, first.ID); old.Processed != 1 || old.FinishedAt != nil {
		t.Fatalf("a cancelled batch moved on: %+v", old)
	}
}
