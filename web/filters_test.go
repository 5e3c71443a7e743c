package web_test

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestJournalFilters: the journal narrows by feeling, pattern, person,
// place and dates, with or without words; lists each chosen filter with a
// link that drops it; keeps the filters in its page links; links an
// entry's feelings, persons and places to the entries that share them, and
// a pattern's page to its entries; and says what is wrong with dates that
// do not fit.
func TestJournalFilters(t *testing.T) {
	h := newHarness(t, nil)
	pattern := h.lunchPattern(h.alice) // three entries, anxious, with Lea on two
	now := h.store.Now()
	// At noon today, a day after the pattern's last entry in any zone.
	parkAt := now.UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	park := h.write(h.alice, "A calm walk in the park with Lea.", parkAt,
		store.NewTag{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"},
		store.NewTag{Type: store.TagPerson, Name: "Lea"}, store.NewTag{Type: store.TagLocation, Name: "the park"})
	alice := h.signIn(h.alice)
	entries := func(a answer) int { return strings.Count(a.body, `data-capture-id="`) }

	feeling := alice.get("/?feeling=anxious")
	has(t, "GET /?feeling=anxious", feeling, 200, `3 entries.`, `Feeling: anxious`, `<option value="anxious" selected>anxious</option>`, `<option value="calm">calm</option>`,
		`<option value="Lea">`, `<option value="the park">`)
	if n := entries(feeling); n != 3 || strings.Contains(feeling.body, park) {
		t.Errorf("the feeling anxious lists %d entries (the park's too: %v), want the three anxious ones", n, strings.Contains(feeling.body, park))
	}
	has(t, "GET /?pattern=", alice.get("/?pattern="+pattern), 200, `3 entries.`, `Pattern: skipping meals`)
	both := alice.get("/?person=lea&feeling=anxious")
	has(t, "GET /?person=lea&feeling=anxious", both, 200, `2 entries.`, `Person: lea`,
		`href="/?feeling=anxious"`, `href="/?person=lea"`) // each removal link keeps the other filter
	has(t, "GET /?place=The+Park", alice.get("/?place=The+Park"), 200, `1 entry.`, park)
	has(t, "GET /?q=walk&person=Lea", alice.get("/?q=walk&person=Lea"), 200, `1 entry holds “walk”`, `<mark>walk</mark>`)
	today := parkAt.In(storetest.Location(t)).Format(time.DateOnly)
	has(t, "GET /?from=today", alice.get("/?from="+today+"&to="+today), 200, `1 entry.`, park, `From: `+today, `To: `+today)
	has(t, "GET /?from after to", alice.get("/?from="+today+"&to=2000-01-01"), 422, `The end date must be on or after the start date.`)
	has(t, "GET /?feeling=hangry", alice.get("/?feeling=hangry"), 422, `“hangry” is not one of Recur&#39;s feelings`)

	// Two values of one filter: the second is kept by the form and can be dropped on its own.
	two := alice.get("/?feeling=anxious&feeling=calm")
	has(t, "GET /?feeling=anxious&feeling=calm", two, 200, `4 entries.`, `<input type="hidden" name="feeling" value="calm">`, `href="/?feeling=anxious"`, `href="/?feeling=calm"`)

	// The page links keep the filters: six anxious entries, five a page.
	for i := range 3 {
		h.write(h.alice, "Anxious again.", now.Add(-time.Duration(i+2)*time.Hour), store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"})
	}
	paged := alice.get("/?feeling=anxious")
	m := regexp.MustCompile(`href="(/\?[^"]*page=2[^"]*)" rel="next"`).FindStringSubmatch(paged.body)
	if m == nil {
		t.Fatalf("no link to page 2 of the anxious entries:\n%s", paged.body)
	}
	next, _ := url.Parse(html.UnescapeString(m[1]))
	if next.Query().Get("feeling") != "anxious" {
		t.Errorf("the next page %q drops the feeling", m[1])
	}
	if n := entries(alice.get(next.RequestURI())); n != 1 {
		t.Errorf("page 2 of the anxious entries lists %d, want 1", n)
	}

	// Entries link their feelings, persons and places to the filtered list.
	has(t, "GET /", alice.get("/"), 200, `data-feeling="anxious" href="/?feeling=anxious"`)
	has(t, "GET /entries/"+park, alice.get("/entries/"+park), 200,
		`data-feeling="calm" href="/?feeling=calm"`, `href="/?person=Lea"`, `href="/?place=the%20park"`)
	has(t, "GET /patterns/"+pattern, alice.get("/patterns/"+pattern), 200, `href="/?pattern=`+pattern+`"`)

	// Another user's filters find nothing of alice's.
	bob := h.signIn(h.bob)
	if a := bob.get("/?pattern=" + pattern); entries(a) != 0 {
		t.Errorf("bob's list by alice's pattern shows %d entries", entries(a))
	}
}
