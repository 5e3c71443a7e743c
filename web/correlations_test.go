package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// correlationJournal gives u, who lives in Auckland, ten days of entries
// written late in the evening (the day before in UTC): skipping meals while
// anxious after criticism on days 1 to 4 and 6 before today, Lea there on days 1 to 5 (twice
// on day 1), the office on days 1, 2, 6 and 7, and running on days 8 to 10.
// Detection then finds two patterns (criticism, skipping meals), each with
// Lea and the office, and not running. It returns the ids by name.
func correlationJournal(t *testing.T, h *harness, u *store.User) map[string]string {
	t.Helper()
	ctx := context.Background()
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	if err := h.store.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: auckland.String()}); err != nil {
		t.Fatal(err)
	}
	today := h.store.Now().In(auckland)
	on := func(days ...int) map[int]bool {
		set := map[int]bool{}
		for _, d := range days {
			set[d] = true
		}
		return set
	}
	pattern, lea, office, running := on(1, 2, 3, 4, 6), on(1, 2, 3, 4, 5), on(1, 2, 6, 7), on(8, 9, 10)
	for d := 1; d <= 10; d++ {
		day := today.AddDate(0, 0, -d)
		var tags []store.NewTag
		if pattern[d] {
			tags = append(tags, store.NewTag{Type: store.TagTrigger, Name: "criticism", NewCategory: "criticism"},
				store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
				store.NewTag{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"})
		}
		if lea[d] {
			tags = append(tags, store.NewTag{Type: store.TagPerson, Name: "Lea"})
		}
		if office[d] {
			tags = append(tags, store.NewTag{Type: store.TagLocation, Name: "the office"})
		}
		if running[d] {
			tags = append(tags, store.NewTag{Type: store.TagActivity, Name: "running"})
		}
		if len(tags) == 0 {
			tags = []store.NewTag{{Type: store.TagActivity, Name: "reading"}}
		}
		h.write(u, fmt.Sprintf("Day %d of the week.", d), time.Date(day.Year(), day.Month(), day.Day(), 23, 30, 0, 0, auckland), tags...)
		if d == 1 {
			// A second entry with Lea on the same day is still one day with her.
			h.write(u, "Lea again at breakfast.", time.Date(day.Year(), day.Month(), day.Day(), 7, 0, 0, 0, auckland),
				store.NewTag{Type: store.TagPerson, Name: "Lea"})
		}
	}
	h.detect(u)
	list, _, err := h.store.ListPatterns(ctx, u.ID, store.Page{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, p := range list {
		ids[p.Name] = p.ID
	}
	if ids["skipping meals"] == "" || ids["criticism"] == "" {
		t.Fatalf("patterns = %v, want criticism and skipping meals", ids)
	}
	return ids
}

// apiCorrelation is a correlation as GET /api/patterns/{id} gives it.
type apiCorrelation struct {
	ID     string `json:"id"`
	Amount int    `json:"amount"`
	Status string `json:"status"`
	Tag    struct {
		ID, Type, Name string
	} `json:"tag"`
}

// apiCorrelations reads the pattern's correlations from the API.
func apiCorrelations(t *testing.T, h *harness, u *store.User, patternID string) map[string]apiCorrelation {
	t.Helper()
	req, _ := http.NewRequest("GET", h.srv.URL+"/api/patterns/"+patternID, nil)
	req.Header.Set("Authorization", "Bearer "+storetest.MustCreateToken(t, h.store, u.ID))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Data struct{ Correlations []apiCorrelation }
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/patterns/%s = %d, %v", patternID, res.StatusCode, err)
	}
	out := map[string]apiCorrelation{}
	for _, c := range body.Data.Correlations {
		out[c.Tag.Name] = c
	}
	return out
}

// correlationItem returns the page's [data-correlation-id] element for id,
// or "" when the page has none.
func correlationItem(body, id string) string {
	m := regexp.MustCompile(`(?s)<li data-correlation-id="` + regexp.QuoteMeta(id) + `">.*?</li>`).FindString(body)
	return m
}

// The pattern page shows each correlation detection found with the real
// sample behind it, says it is an association, and lets the user keep or
// reject each with a plain form; another user can do neither.
func TestPatternCorrelations(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)
	ids := correlationJournal(t, h, h.alice)
	id := ids["skipping meals"]
	corrs := apiCorrelations(t, h, h.alice, id)
	lea, office := corrs["Lea"], corrs["the office"]
	if len(corrs) != 2 || lea.ID == "" || office.ID == "" {
		t.Fatalf("correlations = %+v, want Lea and the office", corrs)
	}
	// Lea was there on 5 days, the pattern on 4 of them; the office on 4,
	// the pattern on 3 of them.
	if lea.Amount != 4 || office.Amount != 3 {
		t.Fatalf("amounts: Lea %d, office %d; want 4 and 3", lea.Amount, office.Amount)
	}

	t.Run("Sample", func(t *testing.T) {
		a := alice.get("/patterns/" + id)
		has(t, "pattern", a, 200, "That is an association, not a cause")
		for name, want := range map[string]struct {
			c           apiCorrelation
			days        int
			preposition string
		}{"Lea": {lea, 5, "with"}, "the office": {office, 4, "at"}} {
			item := correlationItem(a.body, want.c.ID)
			if item == "" {
				t.Errorf("no [data-correlation-id] for %s", name)
				continue
			}
			sample := fmt.Sprintf("on %d of your %d days %s %s", want.c.Amount, want.days, want.preposition, name)
			if !strings.Contains(item, sample) {
				t.Errorf("%s: the item lacks %q:\n%s", name, sample, item)
			}
			if !strings.Contains(item, `action="/patterns/`+id+`/correlations/`+want.c.ID+`"`) {
				t.Errorf("%s: no review form of its own:\n%s", name, item)
			}
		}
		if strings.Contains(a.body, "running") {
			t.Error("running, never seen with the pattern, is shown as coming with it")
		}
	})
	t.Run("AnotherUsersIs404", func(t *testing.T) {
		has(t, "bob keeps", bob.post("/patterns/"+id+"/correlations/"+lea.ID, url.Values{"status": {"accepted"}}), 404)
		has(t, "bob rejects", bob.post("/patterns/"+id+"/correlations/"+lea.ID, url.Values{"status": {"rejected"}, "confirm": {"yes"}}), 404)
		if got := apiCorrelations(t, h, h.alice, id)["Lea"].Status; got != lea.Status {
			t.Errorf("bob's posts changed the status to %s", got)
		}
	})
	t.Run("NotThisPatternsIs404", func(t *testing.T) {
		other := correlationJournal(t, h, h.bob)["skipping meals"]
		bobs := apiCorrelations(t, h, h.bob, other)["Lea"]
		// Alice's pattern with bob's correlation id, and bob's pattern with alice's.
		has(t, "bob's id", alice.post("/patterns/"+id+"/correlations/"+bobs.ID, url.Values{"status": {"accepted"}}), 404)
		has(t, "bob's pattern", alice.post("/patterns/"+other+"/correlations/"+lea.ID, url.Values{"status": {"accepted"}}), 404)
		// Alice's own correlation, but of her other pattern.
		sibling := apiCorrelations(t, h, h.alice, ids["criticism"])["Lea"]
		has(t, "sibling's id", alice.post("/patterns/"+id+"/correlations/"+sibling.ID, url.Values{"status": {"accepted"}}), 404)
		if got := apiCorrelations(t, h, h.alice, ids["criticism"])["Lea"].Status; got != sibling.Status {
			t.Errorf("posting through the wrong pattern changed the status to %s", got)
		}
	})
	t.Run("Keep", func(t *testing.T) {
		a := alice.post("/patterns/"+id+"/correlations/"+lea.ID, url.Values{"status": {"accepted"}, "back": {"pattern"}})
		if a.status != http.StatusSeeOther || a.location != "/patterns/"+id {
			t.Fatalf("keep = %d to %q", a.status, a.location)
		}
		if got := apiCorrelations(t, h, h.alice, id)["Lea"].Status; got != string(store.PatternAccepted) {
			t.Errorf("status = %s, want accepted", got)
		}
		item := correlationItem(alice.get("/patterns/"+id).body, lea.ID)
		if !strings.Contains(item, "Accepted") || strings.Contains(item, `value="accepted"`) {
			t.Errorf("a kept correlation still offers to keep it:\n%s", item)
		}
	})
	t.Run("RejectNeedsConfirmation", func(t *testing.T) {
		has(t, "reject", alice.post("/patterns/"+id+"/correlations/"+office.ID, url.Values{"status": {"rejected"}}), 422, "second button")
		has(t, "other status", alice.post("/patterns/"+id+"/correlations/"+office.ID, url.Values{"status": {"maybe"}}), 422, "accepted or rejected")
		a := alice.post("/patterns/"+id+"/correlations/"+office.ID, url.Values{"status": {"rejected"}, "confirm": {"yes"}, "back": {"pattern"}})
		if a.status != http.StatusSeeOther || a.location != "/patterns/"+id {
			t.Fatalf("reject = %d to %q", a.status, a.location)
		}
		if _, ok := apiCorrelations(t, h, h.alice, id)["the office"]; ok {
			t.Error("the API still lists the rejected correlation")
		}
		page := alice.get("/patterns/" + id).body
		if correlationItem(page, office.ID) != "" || correlationItem(page, lea.ID) == "" {
			t.Error("after the rejection the page should show Lea and not the office")
		}
		// Detection again: a rejected correlation never comes back.
		h.detect(h.alice)
		if correlationItem(alice.get("/patterns/"+id).body, office.ID) != "" || apiCorrelations(t, h, h.alice, id)["the office"].ID != "" {
			t.Error("the rejected correlation came back after detection")
		}
		has(t, "rejected again", alice.post("/patterns/"+id+"/correlations/"+office.ID, url.Values{"status": {"accepted"}}), 404)
	})
}
