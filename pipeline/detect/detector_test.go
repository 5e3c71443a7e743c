package detect_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// journal is a store holding some weeks of the synthetic journal for one
// user, with a clock the test moves, and a second connection to count the
// rows detection writes.
type journal struct {
	store  *store.Store
	user   *store.User
	now    time.Time
	days   []store.Analysis
	db     *sql.DB
	detect *detect.Detector
}

func newJournal(t *testing.T, days int) *journal {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recur.db")
	j := &journal{days: tenYears(2)[:days+10], now: start.AddDate(0, 0, days-1).Add(2 * time.Hour)}
	j.store = storetest.MustOpenAt(t, path, func() time.Time { return j.now })
	j.user = storetest.MustCreateUser(t, j.store, "writes@example.com")
	for d := range days {
		j.write(t, d)
	}
	j.detect = detect.NewDetector(j.store, func() time.Time { return j.now })
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	j.db = db
	// Every row written to the tables detection saves to is counted.
	stmts := []string{`CREATE TABLE detection_writes (tbl TEXT NOT NULL, op TEXT NOT NULL)`}
	for _, tbl := range []string{"patterns", "correlations", "flows"} {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			stmts = append(stmts, fmt.Sprintf(`CREATE TRIGGER count_%[1]s_%[2]s AFTER %[2]s ON %[1]s
				BEGIN INSERT INTO detection_writes VALUES ('%[1]s', '%[2]s'); END`, tbl, op))
		}
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// write commits the journal's entry of day d as a processed capture.
func (j *journal) write(t *testing.T, d int) string {
	t.Helper()
	ctx := context.Background()
	a := j.days[d]
	c := &store.Capture{UserID: j.user.ID, Original: a.Translated, OccurredAt: start.AddDate(0, 0, d)}
	if err := j.store.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := j.store.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	a.CaptureID, a.UserID, a.Language = c.ID, j.user.ID, "en"
	if err := j.store.CommitAnalysis(ctx, &a); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func (j *journal) run(t *testing.T) {
	t.Helper()
	if err := j.detect.Detect(context.Background(), j.user.ID); err != nil {
		t.Fatal(err)
	}
}

// writes returns the rows written since the last call, as "table op" counts.
func (j *journal) writes(t *testing.T) map[string]int {
	t.Helper()
	rows, err := j.db.Query(`SELECT tbl || ' ' || op, count(*) FROM detection_writes GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		out[k] = n
	}
	if _, err := j.db.Exec(`DELETE FROM detection_writes`); err != nil {
		t.Fatal(err)
	}
	return out
}

// stored lists every pattern with its correlations and flows as stored.
func (j *journal) stored(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	patterns, _, err := j.store.FindPatterns(ctx, j.user.ID, store.PatternFilter{Page: store.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range patterns {
		d, err := j.store.PatternDetail(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		closed := "open"
		if p.ClosedAt != nil {
			closed = store.FormatTime(*p.ClosedAt)
		}
		var feelings []string
		for _, f := range p.Feelings {
			feelings = append(feelings, f.ID)
		}
		out = append(out, fmt.Sprintf("pattern %s %s %s %v %v %d %s %s", p.CategoryID, p.Sentiment, p.Impact, p.Urgent,
			feelings, p.CapturesCount, store.FormatTime(p.LastDetectedAt), closed))
		for _, c := range d.Correlations {
			out = append(out, fmt.Sprintf("correlation %s %s %d %s", p.CategoryID, c.Tag.ID, c.Amount, c.Impact))
		}
		for _, f := range d.Flows {
			out = append(out, fmt.Sprintf("flow %s %s %s %s %s", p.CategoryID, f.SegmentID, f.Trigger, f.Feeling, f.Behaviour))
		}
	}
	slices.Sort(out)
	return out
}

// found lists what a detection run over the stored facts finds, as stored
// lists it.
func (j *journal) found(t *testing.T) []string {
	t.Helper()
	facts, err := j.store.DetectionFacts(context.Background(), j.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range detect.Run(detect.InputFrom(facts, j.now, time.UTC)) {
		closed := "open"
		if p.ClosedAt != nil {
			closed = store.FormatTime(*p.ClosedAt)
		}
		out = append(out, fmt.Sprintf("pattern %s %s %s %v %v %d %s %s", p.CategoryID, p.Sentiment, p.Impact, p.Urgent,
			p.Feelings, p.CapturesCount, store.FormatTime(p.LastSeen), closed))
		for _, c := range p.Correlations {
			out = append(out, fmt.Sprintf("correlation %s %s %d %s", p.CategoryID, c.TagID, c.Amount, c.Impact))
		}
		for _, f := range p.Flows {
			out = append(out, fmt.Sprintf("flow %s %s %s %s %s", p.CategoryID, f.SegmentID, f.Trigger, f.Feeling, f.Behaviour))
		}
	}
	slices.Sort(out)
	return out
}

func TestDetectWritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	j := newJournal(t, 40)
	j.run(t)
	if w := j.writes(t); w["patterns INSERT"] == 0 || w["flows INSERT"] == 0 || w["correlations INSERT"] == 0 {
		t.Fatalf("first run wrote %v, want patterns, correlations and flows", w)
	}

	t.Run("UnchangedFactsWriteNothing", func(t *testing.T) {
		j.now = j.now.Add(time.Hour) // a later run, the same day: nothing to change
		j.run(t)
		if w := j.writes(t); len(w) != 0 {
			t.Fatalf("a second run over unchanged facts wrote %v, want nothing", w)
		}
	})

	t.Run("NewCaptureWritesWhatItChanged", func(t *testing.T) {
		before := j.found(t)
		j.now = j.now.AddDate(0, 0, 1)
		j.write(t, 40)
		j.run(t)
		w := j.writes(t)
		after := j.found(t)
		for _, kind := range []string{"flows", "correlations"} {
			added, changed, removed := changes(before, after, strings.TrimSuffix(kind, "s"))
			if w[kind+" INSERT"] != added || w[kind+" UPDATE"] != changed || w[kind+" DELETE"] != removed {
				t.Errorf("a new capture wrote %v; want %d %s added, %d changed and %d removed, no other", w, added, kind, changed, removed)
			}
		}
		if got, want := strings.Join(j.stored(t), "\n"), strings.Join(after, "\n"); got != want {
			t.Errorf("stored after the new capture:\n%s\n\nwant what the run finds:\n%s", got, want)
		}
	})

	t.Run("DeletedCaptureLeavesWhatTheRunFinds", func(t *testing.T) {
		ctx := context.Background()
		id := j.write(t, 41)
		j.run(t)
		j.writes(t)
		if err := j.store.DeleteCapture(ctx, j.user.ID, id); err != nil {
			t.Fatal(err)
		}
		j.writes(t) // the cascade's own deletes
		j.run(t)
		j.writes(t)
		if got, want := strings.Join(j.stored(t), "\n"), strings.Join(j.found(t), "\n"); got != want {
			t.Errorf("stored after the delete:\n%s\n\nwant what the run finds:\n%s", got, want)
		}
	})
}

// changes counts the lines of a kind ("flow", "correlation") that were
// added, changed (same pattern and segment or tag, other values) or
// removed between two listings.
func changes(before, after []string, kind string) (added, changed, removed int) {
	index := func(lines []string) map[string]string {
		m := map[string]string{}
		for _, l := range lines {
			f := strings.Fields(l)
			if f[0] == kind {
				m[f[1]+" "+f[2]] = l
			}
		}
		return m
	}
	b, a := index(before), index(after)
	for k, l := range a {
		old, ok := b[k]
		switch {
		case !ok:
			added++
		case old != l:
			changed++
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			removed++
		}
	}
	return added, changed, removed
}

// TestTagNumbersCountAsTags: the stored segments, which name their tags by
// number in Input.Tags, are counted exactly as segments that carry the tags
// themselves.
func TestTagNumbersCountAsTags(t *testing.T) {
	t.Parallel()
	j := newJournal(t, 120)
	facts, err := j.store.DetectionFacts(context.Background(), j.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	numbered := detect.InputFrom(facts, j.now, time.UTC)
	carried := detect.InputFrom(facts, j.now, time.UTC)
	carried.Tags, carried.Stored = nil, nil
	for _, sg := range numbered.Stored {
		s := detect.Segment{ID: sg.ID, CaptureID: sg.CaptureID, OccurredAt: sg.OccurredAt}
		for _, n := range sg.Tags {
			s.Tags = append(s.Tags, numbered.Tags[n])
		}
		carried.Segments = append(carried.Segments, s)
	}
	got, want := fmt.Sprintf("%+v", detect.Run(numbered)), fmt.Sprintf("%+v", detect.Run(carried))
	if got != want {
		t.Fatalf("run over numbered tags:\n%s\nover carried tags:\n%s", got, want)
	}
	if !strings.Contains(got, "SegmentID") {
		t.Fatalf("no flows found, so nothing compared: %s", got)
	}
}
