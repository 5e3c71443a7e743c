package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// TestEntriesShowFindings: on the journal page, in search results and on
// the entry page, each read entry shows its feelings coloured by valence
// and links to its patterns, inside its own element; an entry still to be
// read shows a quiet placeholder instead.
func TestEntriesShowFindings(t *testing.T) {
	h := newHarness(t, nil)
	id := h.lunchPattern(h.alice)
	waiting := h.write(h.alice, "Nothing read yet about lunch.", h.store.Now().Add(-time.Hour))
	alice := h.signIn(h.alice)
	inEntry := func(what, body, captureID, inner string) {
		t.Helper()
		re := regexp.MustCompile(`(?s)data-capture-id="` + captureID + `".*?` + inner)
		if !re.MatchString(body) {
			t.Errorf("%s: no %s inside entry %s", what, inner, captureID)
		}
	}
	list := alice.get("/")
	has(t, "GET /", list, 200, `data-feeling="anxious"`, `class="chip unpleasant`, `data-pattern-id="`+id+`"`, "Reading for feelings and patterns")
	inEntry("GET /", list.body, waiting, `Reading for feelings`)
	found := alice.get("/?q=skipped")
	has(t, "GET /?q=skipped", found, 200, `data-feeling="anxious"`, `data-pattern-id="`+id+`"`)
	m := regexp.MustCompile(`data-capture-id="([^"]+)" data-status="processed"`).FindStringSubmatch(list.body)
	if m == nil {
		t.Fatal("no read entry listed")
	}
	inEntry("GET /", list.body, m[1], `data-feeling="anxious"`)
	has(t, "GET /entries/"+m[1], alice.get("/entries/"+m[1]), 200, `data-feeling="anxious"`, `data-pattern-id="`+id+`"`)
}

// TestEntryShowsEachSituation: an entry of two situations lists each with
// its own tags.
func TestEntryShowsEachSituation(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	text := "The train was late and I was anxious. Later I walked home and felt calm."
	c := &store.Capture{UserID: h.alice.ID, Original: text, OccurredAt: h.store.Now().Add(-time.Hour)}
	if err := h.store.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	cut := strings.Index(text, " Later")
	if err := h.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: h.alice.ID, Translated: text, Language: "en",
		Segments: []store.AnalysedSegment{
			{Start: 0, End: cut, Tags: []store.NewTag{{Type: store.TagTrigger, Name: "late train", NewCategory: "late train"}, {Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"}}},
			{Start: cut + 1, End: len(text), Tags: []store.NewTag{{Type: store.TagGoodBehaviour, Name: "walking", NewCategory: "walking"}, {Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"}}},
		}}); err != nil {
		t.Fatal(err)
	}
	a := h.signIn(h.alice).get("/entries/" + c.ID)
	re := regexp.MustCompile(`(?s)<ol class="situations">.*The train was late and I was anxious\..*late train.*anxious.*Later I walked home and felt calm\..*walking.*calm.*</ol>`)
	if a.status != 200 || !re.MatchString(a.body) {
		t.Errorf("GET /entries/%s = %d; no list of the two situations with their tags:\n%s", c.ID, a.status, a.body)
	}
}

// TestMonthShowsBalanceOfFeelings: a month's day cell is coloured by the
// balance of that day's feelings, with the same words as the year view.
func TestMonthShowsBalanceOfFeelings(t *testing.T) {
	h := newHarness(t, nil)
	h.lunchPattern(h.alice)
	noon := h.store.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	day := noon.AddDate(0, 0, -1)
	a := h.signIn(h.alice).get("/calendar?month=" + day.Format("2006-01"))
	re := regexp.MustCompile(`(?s)data-date="` + day.Format(time.DateOnly) + `"[^>]*>\s*<span class="n">\d+</span><span class="balance mood m-2" title="mostly unpleasant feelings" data-mood="m-2">`)
	if a.status != 200 || !re.MatchString(a.body) {
		t.Errorf("GET /calendar = %d; the day %s is not marked mostly unpleasant:\n%s", a.status, day.Format(time.DateOnly), a.body)
	}
	shown := 0 // the days with feelings that the month's grid holds
	for _, d := range []int{1, 2, 3} {
		if strings.Contains(a.body, `data-date="`+noon.AddDate(0, 0, -d).Format(time.DateOnly)+`"`) {
			shown++
		}
	}
	if got := strings.Count(a.body, `data-mood=`); got != shown {
		t.Errorf("%d days coloured, want the %d with feelings", got, shown)
	}
}

// TestSearchPageFindsWordForms: "skipping" finds the entries about skipped
// lunches on the journal page.
func TestSearchPageFindsWordForms(t *testing.T) {
	h := newHarness(t, nil)
	h.lunchPattern(h.alice)
	has(t, "GET /?q=skipping", h.signIn(h.alice).get("/?q=skipping"), 200, "3 entries hold", "<mark>skipped</mark>")
}
