package server_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// firstPatternID is the id of the first pattern the user's list gives.
func firstPatternID(t *testing.T, h *harness, u *store.User) string {
	t.Helper()
	list, _, err := h.store.ListPatterns(context.Background(), u.ID, store.Page{Page: 1, Limit: 1})
	if err != nil || len(list) == 0 {
		t.Fatalf("patterns of %s: %v, %v", u.Email, list, err)
	}
	return list[0].ID
}

// TestListCapturesFilters: GET /captures narrows by feeling, pattern,
// person, place and dates in the user's zone, with and without words, and
// keeps the filters in its page links; another user's pattern matches
// nothing; and a word form finds an entry written in Spanish or German.
func TestListCapturesFilters(t *testing.T) {
	h := newHarness(t)
	last := journalOf(t, h, h.alice) // three "Frist Deadline" entries, anxious, with Ana
	journalOf(t, h, h.bob)
	pattern, bobs := firstPatternID(t, h, h.alice), firstPatternID(t, h, h.bob)
	park := analysed(t, h, h.alice, last.Add(time.Minute), "Me salté el almuerzo y caminé por el parque.", "I missed lunch and walked in the park.", "es",
		store.NewTag{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"}, store.NewTag{Type: store.TagLocation, Name: "the park"})
	kinder := analysed(t, h, h.alice, last.Add(2*time.Minute), "Die Kinder waren müde.", "The children were exhausted.", "de")
	loc := storetest.Location(t)
	day := func(d time.Time) string { return d.In(loc).Format(time.DateOnly) }
	first := last.AddDate(0, 0, -2)
	deadlines := []string{`"original":"Frist Deadline 0 `, `"original":"Frist Deadline 1 `, `"original":"Frist Deadline 2 `}
	quiet := `A quiet day`
	list := func(query string) string { return "/api/captures?" + query }

	h.run([]scenario{
		{name: "Feeling", method: "GET", path: list("feeling=anxious"), token: h.tokenA, status: 200,
			contains: append([]string{`"total":3`}, deadlines...), notContains: []string{quiet, "salté", "bob@"}},
		{name: "FeelingsAnyOf", method: "GET", path: list("feeling=Calm&feeling=anxious"), token: h.tokenA, status: 200,
			contains: []string{`"total":4`, "salté"}},
		{name: "Pattern", method: "GET", path: list("pattern=" + pattern), token: h.tokenA, status: 200,
			contains: append([]string{`"total":3`}, deadlines...), notContains: []string{quiet}},
		{name: "AnotherUsersPatternIsEmpty", method: "GET", path: list("pattern=" + bobs), token: h.tokenA, status: 200,
			contains: []string{`"data":[]`, `"total":0`}, notContains: []string{"bob@"}},
		{name: "Person", method: "GET", path: list("person=ana"), token: h.tokenA, status: 200,
			contains: append([]string{`"total":3`}, deadlines...)},
		{name: "Place", method: "GET", path: list("place=The+Park"), token: h.tokenA, status: 200,
			contains: []string{`"total":1`, park.ID}},
		{name: "Dates", method: "GET", path: list("from=" + day(first.AddDate(0, 0, 1)) + "&to=" + day(last)), token: h.tokenA, status: 200,
			contains: []string{`"total":4`, deadlines[1], deadlines[2], park.ID, kinder.ID}, notContains: []string{deadlines[0], quiet}},
		{name: "FromOnly", method: "GET", path: list("from=" + day(last)), token: h.tokenA, status: 200,
			contains: []string{`"total":3`, deadlines[2]}},
		{name: "WordsAndFeeling", method: "GET", path: list("q=deadline&feeling=anxious&to=" + day(first)), token: h.tokenA, status: 200,
			contains: []string{`"total":1`, deadlines[0], `"snippet":"Frist <mark>Deadline</mark>`}},
		{name: "WordsAndPlace", method: "GET", path: list("q=lunch&place=nowhere"), token: h.tokenA, status: 200,
			contains: []string{`"total":0`}},
		{name: "SpanishWordForm", method: "GET", path: list("q=saltando"), token: h.tokenA, status: 200,
			contains: []string{`"total":1`, park.ID, `<mark>salté</mark>`}},
		{name: "GermanWordForm", method: "GET", path: list("q=Kindern"), token: h.tokenA, status: 200,
			contains: []string{`"total":1`, kinder.ID, `<mark>Kinder</mark>`}},
		{name: "LinksKeepFilters", method: "GET", path: list("feeling=anxious&person=Ana&limit=1&page=2"), token: h.tokenA, status: 200,
			contains: []string{`"next":"http://`, `feeling=anxious`, `person=Ana`, `"total":3`}},
		{name: "ErrUnknownFeeling", method: "GET", path: list("feeling=hangry"), token: h.tokenA, status: 422,
			contains: []string{`"errors":{"feeling":["The feeling \"hangry\" is not one of Recur's feelings, such as anxious, calm or tired."]}`}},
		{name: "ErrBadDate", invalid: true, method: "GET", path: list("from=2025-02-30"), token: h.tokenA, status: 422,
			contains: []string{`"errors":{"from":["The from must be a date in the form YYYY-MM-DD."]}`}},
		{name: "ErrFromAfterTo", method: "GET", path: list("from=2025-03-02&to=2025-03-01"), token: h.tokenA, status: 422,
			contains: []string{`"errors":{"to":["The to must be a date on or after from."]}`}},
		{name: "ErrTooManyValues", invalid: true, method: "GET", path: list(strings.Repeat("person=a&", 11)), token: h.tokenA, status: 422,
			contains: []string{`"errors":{"person":["The person may not have more than 10 items."]}`}},
		{name: "ErrPatternNotID", method: "GET", path: list("pattern=work"), token: h.tokenA, status: 422,
			contains: []string{`"errors":{"pattern":["The pattern must be a pattern's id, a UUID; “work” is not one."]}`}},
		{name: "ErrNoToken", method: "GET", path: list("feeling=anxious"), status: 401},
	})

	// The page links of a filtered list lead to the same filtered list.
	res := h.do("GET", list("feeling=anxious&limit=2"), h.tokenA, nil)
	next, _ := res.JSON(t)["links"].(map[string]any)["next"].(string)
	u, err := url.Parse(next)
	if err != nil || u.Query().Get("feeling") != "anxious" || u.Query().Get("page") != "2" {
		t.Fatalf("next = %q, %v; want page 2 of the feeling anxious", next, err)
	}
	res = h.do("GET", u.RequestURI(), h.tokenA, nil)
	if got := fmt.Sprint(res.JSON(t)["meta"].(map[string]any)["to"]); res.Status != 200 || got != "3" {
		t.Errorf("page 2: %d, meta.to %s; want the third of three", res.Status, got)
	}
}
