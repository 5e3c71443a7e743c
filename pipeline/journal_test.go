package pipeline_test

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// journalEnd is the morning after the last entry of the journal.
var journalEnd = time.Date(2026, 10, 30, 8, 0, 0, 0, time.UTC)

// runJournal analyses the four-week journal of testdata, detection
// included, for a user in Europe/London, with the clock at journalEnd.
func runJournal(t *testing.T) *env {
	t.Helper()
	clock := func() time.Time { return journalEnd }
	e := newEnv(t)
	e.store = storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "journal.db"), clock)
	e.user = storetest.MustCreateUser(t, e.store, "journal@example.com")
	ctx := context.Background()
	if err := e.store.PutSetting(ctx, e.user.ID, &store.Setting{Key: "timezone", Value: "Europe/London"}); err != nil {
		t.Fatal(err)
	}
	e.pipe = e.newPipeline(func(o *pipeline.Options) {
		o.Store = e.store
		o.Detector = detect.NewDetector(e.store, clock)
	})
	for _, entry := range loadCorpus(t) {
		c := &store.Capture{UserID: e.user.ID, Original: entry.Text, OccurredAt: entry.OccurredAt}
		if err := e.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, e.pipe)
	if q, _ := e.store.QueueCounts(ctx); q.Queued+q.Failed+q.Processing != 0 {
		t.Fatalf("queue after the journal: %+v", q)
	}
	return e
}

// drain analyses every ready capture in the test's goroutine.
func drain(t testing.TB, p *pipeline.Pipeline) {
	t.Helper()
	for {
		ok, err := p.ProcessNext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
	}
}

// TestJournal runs the four-week journal of testdata through the whole
// pipeline, detection included, and checks it ends with the patterns,
// correlations and flows a reader of that journal would name.
func TestJournal(t *testing.T) {
	t.Parallel()
	e := runJournal(t)
	ctx := context.Background()
	list, _, err := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*store.Pattern{}
	var names []string
	for i := range list {
		got[list[i].Name] = &list[i]
		names = append(names, list[i].Name)
	}
	sort.Strings(names)
	want := []string{"comfort eating", "cooking at home", "criticism at work", "exercise", "family pressure", "skipping meals", "snapping at family", "travel delays"}
	if !slices.Equal(names, want) {
		t.Fatalf("listed patterns = %v, want %v", names, want)
	}

	// Crisps after a bad day stopped on 22 October: a closed pattern, listed
	// after the open ones, still on the calendar and readable by id.
	if last := list[len(list)-1]; last.Name != "comfort eating" {
		t.Fatalf("last listed = %s, want the closed comfort eating", last.Name)
	}
	day, err := e.store.Timeline(ctx, e.user.ID, time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 4, 0, 0, 0, 0, time.UTC))
	if err != nil || len(day) != 1 {
		t.Fatalf("timeline of 3 October = %v, %v", day, err)
	}
	var crisps *store.Pattern
	for _, ref := range day[0].Patterns {
		if ref.Name == "comfort eating" {
			if crisps, err = e.store.FindPattern(ctx, e.user.ID, ref.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if crisps == nil || crisps.ClosedAt == nil || !crisps.ClosedAt.Equal(time.Date(2026, 10, 29, 22, 42, 0, 0, time.UTC)) {
		t.Fatalf("comfort eating = %+v, want closed a week after 22 October 22:42", crisps)
	}

	check := func(name, sentiment string, feelings ...string) *store.Pattern {
		t.Helper()
		p := got[name]
		var fs []string
		for _, f := range p.Feelings {
			fs = append(fs, f.Name)
		}
		if p.Sentiment != sentiment || !slices.Equal(fs[:len(feelings)], feelings) {
			t.Errorf("%s: sentiment %s feelings %v, want %s starting %v", name, p.Sentiment, fs, sentiment, feelings)
		}
		if p.Description == "" {
			t.Errorf("%s has no description", name)
		}
		return p
	}
	work := check("criticism at work", "negative", "anxious")
	check("exercise", "positive", "calm", "proud")
	check("family pressure", "negative", "guilty", "irritated")
	check("cooking at home", "positive", "content")

	detail, err := e.store.PatternDetail(ctx, work)
	if err != nil {
		t.Fatal(err)
	}
	corr := map[string]bool{}
	for _, c := range detail.Correlations {
		corr[string(c.Tag.Type)+":"+c.Tag.Name] = true
	}
	for _, c := range []string{"person:my boss", "location:the office"} {
		if !corr[c] {
			t.Errorf("criticism at work lacks the correlation %s; has %v", c, corr)
		}
	}
	if corr["person:Sam"] || corr["location:the park"] {
		t.Errorf("criticism at work correlates with what it never comes with: %v", corr)
	}
	if len(detail.Flows) == 0 {
		t.Fatal("criticism at work has no flows")
	}
	for _, f := range detail.Flows {
		if f.Trigger != "criticism from my boss" || !strings.Contains("anxious stressed tense", f.Feeling) {
			t.Errorf("flow %+v", f)
		}
	}
	if got := detail.Flows[0]; got.Behaviour != "skipped lunch" {
		t.Errorf("first flow behaviour = %q, want skipped lunch", got.Behaviour)
	}

	// Spanish entry counted under the same pattern.
	if work.CapturesCount != 10 {
		t.Errorf("criticism at work rests on %d captures, want 10 (nine English, one Spanish)", work.CapturesCount)
	}
}
