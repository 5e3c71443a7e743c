package web_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// feelingsHarness gives alice, on a fixed clock (Wednesday 17 June 2026),
// entries with known feelings over the last months and an accepted pattern,
// and bob one entry of his own; it returns the harness and the pattern.
func feelingsHarness(t *testing.T) (*harness, string) {
	now := time.Date(2026, 6, 17, 15, 0, 0, 0, time.UTC)
	h := newHarnessAt(t, nil, func() time.Time { return now })
	ctx := context.Background()
	loc, err := h.store.Location(ctx, h.alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	at := func(date string) time.Time {
		d, _ := time.ParseInLocation(time.DateOnly, date, loc)
		return d.Add(12 * time.Hour)
	}
	feel := func(names ...string) []store.NewTag {
		var tags []store.NewTag
		for _, n := range names {
			typ := store.TagNegativeFeeling
			switch n {
			case "calm", "joyful", "grateful":
				typ = store.TagPositiveFeeling
			case "bittersweet":
				typ = store.TagMixedFeeling
			}
			tags = append(tags, store.NewTag{Type: typ, Name: n, FeelingID: n})
		}
		return tags
	}
	skipped := store.NewTag{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"}
	h.write(h.alice, "I skipped lunch again.", at("2026-06-16"), append(feel("anxious"), skipped)...)
	h.write(h.alice, "Skipped lunch, then a calm walk.", at("2026-06-15"), append(feel("anxious", "calm"), skipped)...)
	h.write(h.alice, "No lunch today.", at("2026-06-10"), append(feel("anxious"), skipped)...)
	h.write(h.alice, "A good day with friends.", at("2026-06-02"), feel("joyful", "grateful")...)
	h.write(h.alice, "Dancing in the evening.", at("2026-06-02"), feel("joyful")...)
	h.write(h.alice, "Old photos of the flat we left.", at("2026-06-03"), feel("bittersweet")...)
	h.write(h.alice, "A grey autumn day.", at("2025-10-01"), feel("sad")...)
	h.write(h.bob, "The neighbour's dog barked all night.", at("2026-06-16"), feel("angry")...)
	h.detect(h.alice)
	list, _, err := h.store.ListPatterns(ctx, h.alice.ID, store.Page{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.Name == "skipping meals" {
			if _, err := h.store.ReviewPattern(ctx, h.alice.ID, p.ID, store.PatternAccepted); err != nil {
				t.Fatal(err)
			}
			return h, p.ID
		}
	}
	t.Fatalf("no pattern of skipping meals among %d", len(list))
	return nil, ""
}

// weekFigures reads each week's pleasant, unpleasant and mixed counts from
// the page's table and from its figure's bars, and fails when they disagree.
func weekFigures(t *testing.T, body string) map[string][3]int {
	t.Helper()
	out := map[string][3]int{}
	rows := regexp.MustCompile(`<tr data-week="([0-9-]+)"><th scope="row">[^<]+</th><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>`).FindAllStringSubmatch(body, -1)
	for _, m := range rows {
		p, _ := strconv.Atoi(m[2])
		u, _ := strconv.Atoi(m[3])
		x, _ := strconv.Atoi(m[4])
		out[m[1]] = [3]int{p, u, x}
	}
	bars := regexp.MustCompile(`<g data-week="([0-9-]+)" data-pleasant="(\d+)" data-unpleasant="(\d+)" data-mixed="(\d+)">`).FindAllStringSubmatch(body, -1)
	if len(rows) == 0 || len(bars) != 2*len(rows) {
		t.Fatalf("%d table rows and %d bars (wide and narrow), want one row and two bars a week", len(rows), len(bars))
	}
	for _, m := range bars {
		p, _ := strconv.Atoi(m[2])
		u, _ := strconv.Atoi(m[3])
		x, _ := strconv.Atoi(m[4])
		if got, want := [3]int{p, u, x}, out[m[1]]; got != want {
			t.Errorf("week %s: the bars say %v, the table %v", m[1], got, want)
		}
	}
	return out
}

// TestFeelingsPageCountsTheEntries: the feelings page counts, week by week,
// the pleasant and unpleasant feelings of the entries written, each feeling
// once per entry, lists the feelings found most, and follows the accepted
// pattern's days; the span is capped and another user's feelings never show.
func TestFeelingsPageCountsTheEntries(t *testing.T) {
	h, patternID := feelingsHarness(t)
	alice := h.signIn(h.alice)

	a := alice.get("/feelings")
	has(t, "GET /feelings", a, 200, `aria-current="page">Feelings</a>`, `<title>Pleasant and unpleasant feelings each week</title>`,
		`data-testid="top-feelings"`, "Since 15 December 2025. Pleasant: 4, unpleasant: 3, mixed: 1.", `<span class="key tone mixed">`)
	weeks := weekFigures(t, a.body)
	want := map[string][3]int{"2026-06-15": {1, 2, 0}, "2026-06-08": {0, 1, 0}, "2026-06-01": {3, 0, 1}}
	if got := len(weeks); got != 27 {
		t.Errorf("%d weeks shown, want the 27 from 15 December 2025 to this week", got)
	}
	for week, counts := range weeks {
		if counts != want[week] {
			t.Errorf("week of %s: %v pleasant, unpleasant and mixed, want %v", week, counts, want[week])
		}
	}
	top := regexp.MustCompile(`<g data-feeling="(\w+)" data-count="(\d+)">`).FindAllStringSubmatch(a.body, -1)
	var said []string
	for _, m := range top {
		said = append(said, m[1]+" "+m[2])
	}
	if got, want := strings.Join(said, ", "), "anxious 3, joyful 2, bittersweet 1, calm 1, grateful 1"; got != want {
		t.Errorf("found most: %s, want %s", got, want)
	}
	trend := regexp.MustCompile(`(?s)<li data-trend="` + patternID + `">.*?skipping meals.*?Days: 3 in the last 4 weeks, 0 in the 4 weeks before\.`)
	if !trend.MatchString(a.body) {
		t.Errorf("the accepted pattern's days are not followed:\n%s", a.body)
	}
	if strings.Contains(a.body, "angry") || strings.Contains(a.body, "sad") {
		t.Error("alice's page shows a feeling she never had in these months")
	}

	year := alice.get("/feelings?months=12")
	has(t, "GET /feelings?months=12", year, 200, `<g data-feeling="sad" data-count="1">`)
	if got := weekFigures(t, year.body)["2025-09-29"]; got != [3]int{0, 1, 0} {
		t.Errorf("week of 2025-09-29 over a year: %v, want one unpleasant feeling", got)
	}

	bob := h.signIn(h.bob).get("/feelings")
	has(t, "GET /feelings as bob", bob, 200, "Since 15 December 2025. Pleasant: 0, unpleasant: 1.", `<g data-feeling="angry" data-count="1">`)
	for _, leak := range []string{"anxious", "joyful", "skipping meals", patternID} {
		if strings.Contains(bob.body, leak) {
			t.Errorf("bob's feelings page shows alice's %q", leak)
		}
	}

	for _, bad := range []string{"13", "0", "many"} {
		has(t, "GET /feelings?months="+bad, alice.get("/feelings?months="+bad), 422, "The months must be a number from 1 to 12.")
	}
	if got := h.anonymous().get("/feelings"); got.status != 303 || got.location != "/" {
		t.Errorf("signed out: %d to %q, want 303 to the sign-in page", got.status, got.location)
	}
}
