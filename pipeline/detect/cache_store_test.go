package detect_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// tagSets are the situations random journals are written of: two loops,
// with persons and places.
var tagSets = func() [][]store.NewTag {
	cheerful := store.NewTag{Type: store.TagPositiveFeeling, Name: "cheerful", FeelingID: "cheerful"}
	walk := store.NewTag{Type: store.TagGoodBehaviour, Name: "went for a walk", NewCategory: "walking"}
	anna := store.NewTag{Type: store.TagPerson, Name: "Anna"}
	office := store.NewTag{Type: store.TagLocation, Name: "the office"}
	return [][]store.NewTag{{criticised, anxious, late, office}, {criticised, anxious, late, dinner}, {dinner, anxious, anna},
		{walk, cheerful, anna}, {criticised, cheerful, walk}, {late, office}, {walk, cheerful}}
}()

// TestCachedFactsDetectAsFresh holds detection over the journal a
// FactsCache keeps between runs to detection over the journal read whole:
// after every step of a random sequence (entries of today and of long ago,
// deleted ones, whose tags then go too, entries moved in time, edited and
// analysed again or failed, patterns rejected and accepted, another
// timezone, another user writing) the patterns, their feelings, counts,
// correlations, flows and loops come out exactly the same, and so do the
// captures and situations read, tag by tag. The days the Detector tells
// of each pattern and loop after its run are those the store reads, and
// the links it saves (those it kept from its last run where they are the
// same) are those counted afresh.
func TestCachedFactsDetectAsFresh(t *testing.T) {
	t.Parallel()
	s, now, clock := atEvening(t)
	u := storetest.MustCreateUser(t, s, "cached@example.com")
	other := storetest.MustCreateUser(t, s, "other@example.com")
	d := detect.NewDetector(s, clock)
	var cache store.FactsCache
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(27, 25000))
	sets := tagSets
	analyse := func(c *store.Capture) {
		t.Helper()
		if claimed, err := s.ClaimCapture(ctx); err != nil || claimed.ID != c.ID {
			t.Fatalf("claimed %+v, %v; want %s", claimed, err, c.ID)
		}
		if rng.IntN(5) == 0 {
			if err := s.FailCapture(ctx, c.ID); err != nil {
				t.Fatal(err)
			}
			return
		}
		var segments []store.AnalysedSegment
		for range 1 + rng.IntN(3) {
			segments = append(segments, store.AnalysedSegment{Start: 0, End: 3, Tags: sets[rng.IntN(len(sets))]})
		}
		if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Translated: "Yes", Language: "en", Segments: segments}); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	waiting := ""
	for step := range 150 {
		if waiting != "" { // left waiting through a run, analysed now
			analyse(&store.Capture{ID: waiting, UserID: u.ID})
			waiting = ""
		}
		switch op := rng.IntN(16); {
		case op < 6 || len(ids) == 0:
			at := now.Add(-time.Duration(rng.IntN(40*24)) * time.Hour)
			if op == 0 {
				at = now.AddDate(-rng.IntN(3), 0, -rng.IntN(300)) // back-dated
			}
			ids = append(ids, storetest.MustWriteAnalysed(t, s, u.ID, at, sets[rng.IntN(len(sets))]...).ID)
		case op < 8:
			i := rng.IntN(len(ids))
			if err := s.DeleteCapture(ctx, u.ID, ids[i]); err != nil {
				t.Fatal(err)
			}
			ids = slices.Delete(ids, i, i+1)
		case op < 10:
			at := now.Add(-time.Duration(rng.IntN(60*24)) * time.Hour)
			if _, _, err := s.UpdateCapture(ctx, u.ID, ids[rng.IntN(len(ids))], store.CaptureUpdate{OccurredAt: &at}); err != nil {
				t.Fatal(err)
			}
		case op < 12:
			text := "Edited " + time.Duration(step).String()
			c, _, err := s.UpdateCapture(ctx, u.ID, ids[rng.IntN(len(ids))], store.CaptureUpdate{Text: &text})
			if err != nil {
				t.Fatal(err)
			}
			if rng.IntN(3) > 0 {
				analyse(c)
			} else {
				waiting = c.ID // its old situations kept meanwhile
			}
		case op < 13:
			list, _, err := s.ListPatterns(ctx, u.ID, store.Page{Page: 1, Limit: 50})
			if err != nil || len(list) == 0 {
				continue
			}
			status := []store.PatternStatus{store.PatternAccepted, store.PatternRejected}[rng.IntN(2)]
			if _, err := s.ReviewPattern(ctx, u.ID, list[rng.IntN(len(list))].ID, status); err != nil {
				t.Fatal(err)
			}
		case op < 14:
			zone := []string{"UTC", "Pacific/Auckland", "America/Los_Angeles"}[rng.IntN(3)]
			if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: zone}); err != nil {
				t.Fatal(err)
			}
		default:
			storetest.MustWriteAnalysed(t, s, other.ID, now.Add(-time.Duration(rng.IntN(40*24))*time.Hour), sets[rng.IntN(len(sets))]...)
		}
		cached, err := s.CachedDetectionFacts(ctx, &cache, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := s.DetectionFacts(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := tagged(cached), tagged(fresh); !reflect.DeepEqual(a, b) {
			t.Fatalf("step %d: the cache reads\n%v\nthe journal read whole\n%v", step, a, b)
		}
		loc, err := s.Location(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, want := detect.Run(detect.InputFrom(cached, now, loc)), detect.Run(detect.InputFrom(fresh, now, loc))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: over the cache\n%+v\nover the journal read whole\n%+v", step, got, want)
		}
		if err := d.Detect(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
		linksAsFresh(t, s, u, now, step)
		if waiting == "" { // the store counts a waiting capture's old situations
			loopDaysAsStored(t, s, d, u, step)
		}
		if step%7 == 0 {
			if err := s.PruneDetectionChanges(ctx, &cache, u.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// tagged is what facts say of each situation: its capture, time and tags
// by id, in order.
func tagged(f *store.Facts) []string {
	var out []string
	for _, c := range f.Captures {
		out = append(out, "capture "+c.ID+" "+c.OccurredAt.String())
	}
	for _, sg := range f.Segments {
		line := sg.ID + " of " + sg.CaptureID + " " + sg.OccurredAt.String() + ":"
		for _, n := range sg.Tags {
			line += " " + f.Tags[n].ID + "/" + f.Tags[n].CategoryID + "/" + f.Tags[n].FeelingID
		}
		out = append(out, line)
	}
	return out
}

// linksAsFresh holds the sums of the links the Detector saved for each
// pattern to the sums of the links counted afresh over the journal as it
// is now.
func linksAsFresh(t *testing.T, s *store.Store, u *store.User, now time.Time, step int) {
	t.Helper()
	ctx := context.Background()
	facts, err := s.DetectionFacts(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := s.Location(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	saved := map[string]store.PatternFact{}
	for _, p := range facts.Patterns {
		saved[p.CategoryID] = p
	}
	for _, p := range detect.Run(detect.InputFrom(facts, now, loc)) {
		if got, want := saved[p.CategoryID].LinksHash, detect.SumLinks(p); got != want {
			t.Fatalf("step %d: pattern %s saved with links summing to %s; counted afresh they sum to %s", step, p.Name, got, want)
		}
		if saved[p.CategoryID].Status == store.PatternRejected {
			continue
		}
		// The flows stored, which a run writes by comparing with those it
		// saved last rather than reading them, are those counted afresh.
		stored, err := s.FindPattern(ctx, u.ID, saved[p.CategoryID].ID)
		if err != nil {
			t.Fatal(err)
		}
		detail, err := s.PatternDetail(ctx, stored)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, f := range detail.Flows {
			got = append(got, f.SegmentID+": "+f.Trigger+" / "+f.Feeling+" / "+f.Behaviour)
		}
		for _, f := range p.Flows {
			want = append(want, f.SegmentID+": "+f.Trigger+" / "+f.Feeling+" / "+f.Behaviour)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: pattern %s stores the flows\n%v\ncounted afresh they are\n%v", step, p.Name, got, want)
		}
	}
}

// A pattern none of whose situations changed since the Detector's last run
// keeps the days that run counted only while days are cut in the same
// timezone: moved to another, the same situations fall on other days.
func TestKeptDaysFollowTheTimezone(t *testing.T) {
	t.Parallel()
	s, now, clock := atEvening(t)
	u := storetest.MustCreateUser(t, s, "zone@example.com")
	d := detect.NewDetector(s, clock)
	ctx := context.Background()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	// The first entry, at noon, stays on its day in Los Angeles, so that
	// days are numbered from the same first one; the late ones, three
	// hours after midnight, fall on the day before there.
	storetest.MustWriteAnalysed(t, s, u.ID, midnight.AddDate(0, 0, -20).Add(12*time.Hour), walkCheerful...)
	for day := 1; day <= 4; day++ {
		storetest.MustWriteAnalysed(t, s, u.ID, midnight.AddDate(0, 0, -2*day).Add(3*time.Hour), criticised, anxious, late)
	}
	if err := d.Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: "America/Los_Angeles"}); err != nil {
		t.Fatal(err)
	}
	storetest.MustWriteAnalysed(t, s, u.ID, midnight.AddDate(0, 0, -1).Add(12*time.Hour), walkCheerful...) // touches walking alone
	if err := d.Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	loopDaysAsStored(t, s, d, u, 0)
	linksAsFresh(t, s, u, now, 0)
}

var walkCheerful = tagSets[6]
