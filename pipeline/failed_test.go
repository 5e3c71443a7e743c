package pipeline_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/store"
)

// TestFailedRunKeepsOnlyText analyses three entries about late trains on
// three days, which makes a pattern, then analyses them again with the
// model answering garbage for one of them: that capture keeps its text and
// nothing else, the pattern stops counting it and closes (two days are no
// pattern), and the batch counts one failed and two processed.
func TestFailedRunKeepsOnlyText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.pipe = e.newPipeline(func(o *pipeline.Options) { o.Detector = detect.NewDetector(e.store, nil) })
	ctx := context.Background()
	days := []string{"Monday", "Tuesday", "Wednesday"}
	var ids []string
	for i, day := range days {
		c := &store.Capture{UserID: e.user.ID, Original: "On " + day + " the train was late again on my commute. I was frustrated and annoyed.",
			OccurredAt: e.store.Now().Add(time.Duration(i-2) * 24 * time.Hour)}
		if err := e.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	var garbage atomic.Bool
	e.answerWith(func(step string, req *api.ChatRequest) (fakeollama.Reply, bool) {
		bad := garbage.Load() && extracting(step) && strings.Contains(req.Messages[1].Content, "Wednesday")
		return fakeollama.Reply{Content: `{"situations": [{"first": 1,`}, bad
	})
	e.start()
	for _, id := range ids {
		e.waitStatus(id, store.StatusProcessed)
	}
	// Detection runs just after each run commits: wait for the third.
	var list []store.Pattern
	var err error
	wait.Poll(5*time.Second, func() bool {
		list, _, err = e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 100})
		return err != nil || (len(list) == 1 && list[0].CapturesCount == 3)
	})
	if err != nil || len(list) != 1 || list[0].CapturesCount != 3 || list[0].ClosedAt != nil {
		t.Fatalf("patterns after three late trains = %+v (%v), want one open, of three captures", list, err)
	}
	pattern := list[0].ID

	garbage.Store(true)
	b, err := e.store.Reanalyse(ctx, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.pipe.Notify()
	failed := e.waitStatus(ids[2], store.StatusFailed)
	for _, id := range ids[:2] {
		e.waitStatus(id, store.StatusProcessed)
	}

	t.Run("OnlyTheText", func(t *testing.T) {
		if failed.Original == "" || len(failed.Segments) != 0 || failed.Translated != "" || failed.Language != "" {
			t.Fatalf("failed capture kept %d segments, translation %q, language %q; want its text only",
				len(failed.Segments), failed.Translated, failed.Language)
		}
	})
	t.Run("PatternStopsCountingIt", func(t *testing.T) {
		// Detection runs just after the last run commits: wait for it.
		var p *store.Pattern
		var err error
		wait.Poll(5*time.Second, func() bool {
			p, err = e.store.FindPattern(ctx, e.user.ID, pattern)
			return err != nil || (p.CapturesCount == 2 && p.ClosedAt != nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		if p.CapturesCount != 2 || p.ClosedAt == nil {
			t.Fatalf("pattern after the failed run: %d captures, closed %v; want 2 and closed", p.CapturesCount, p.ClosedAt)
		}
	})
	t.Run("BatchCounts", func(t *testing.T) {
		b, err := e.store.FindJobBatch(ctx, e.user.ID, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if b.Processed != 2 || b.Failed != 1 || b.Pending != 0 || b.FinishedAt == nil {
			t.Fatalf("batch = %d processed, %d failed, %d pending, finished %v; want 2, 1, 0, finished",
				b.Processed, b.Failed, b.Pending, b.FinishedAt)
		}
	})
	t.Run("TagsOfOthersStay", func(t *testing.T) {
		c, err := e.store.FindCapture(ctx, e.user.ID, ids[0])
		if err != nil || len(tagNames(c, store.TagTrigger)) == 0 {
			t.Fatalf("a processed capture lost its tags: %+v, %v", c, err)
		}
	})
}
