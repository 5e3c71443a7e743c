package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
)

// write gives u a processed capture at when with one segment holding tags,
// and returns its id.
func write(t *testing.T, h *harness, u *store.User, when time.Time, tags ...store.NewTag) string {
	t.Helper()
	ctx := context.Background()
	c := &store.Capture{UserID: u.ID, Original: "An entry.", OccurredAt: when}
	if err := h.store.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en",
		Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: tags}}}); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func mustDetect(t *testing.T, h *harness, u *store.User) {
	t.Helper()
	if err := detect.NewDetector(h.store, nil).Detect(context.Background(), u.ID); err != nil {
		t.Fatal(err)
	}
}

// listNames lists the names of the patterns a GET answers, in order, with
// "(closed)" after the closed ones.
func listNames(t *testing.T, h *harness, path string) string {
	t.Helper()
	res := h.do("GET", path, h.tokenA, nil)
	if res.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	var names []string
	for _, item := range res.JSON(t)["data"].([]any) {
		p := item.(map[string]any)
		closed, present := p["closed_at"]
		if !present {
			t.Fatalf("list item without closed_at: %v", p)
		}
		name := p["name"].(string)
		if closed != nil {
			name += " (closed)"
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

// The list holds open patterns first (urgent, then most recently seen) and
// then closed ones, most recently closed first: one that went quiet for a
// week, and one found only in history imported years ago. Rejected ones
// never.
func TestPatternListHoldsClosed(t *testing.T) {
	h := newHarness(t)
	noon := h.store.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	tag := func(typ store.TagType, name, category string) store.NewTag {
		return store.NewTag{Type: typ, Name: name, NewCategory: category}
	}
	anxious := store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"}
	calm := store.NewTag{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"}
	for _, d := range []int{1, 2, 3} { // open and urgent
		write(t, h, h.alice, noon.AddDate(0, 0, -d), tag(store.TagBadBehaviour, "skipped lunch", "skipping meals"), anxious)
	}
	for _, d := range []int{5, 12, 19} { // open, not urgent
		write(t, h, h.alice, noon.AddDate(0, 0, -d), tag(store.TagGoodBehaviour, "read", "reading"), calm)
	}
	for _, d := range []int{8, 15, 22} { // a weekly run, last seen eight days ago
		write(t, h, h.alice, noon.AddDate(0, 0, -d), tag(store.TagGoodBehaviour, "ran", "running"), calm)
	}
	for _, d := range []int{1, 2, 3} { // imported years ago
		write(t, h, h.alice, time.Date(2019, 3, d, 9, 0, 0, 0, time.UTC), tag(store.TagTrigger, "boss shouting", "criticism at work"), anxious)
	}
	for _, d := range []int{30, 31, 32} { // to be rejected
		write(t, h, h.alice, noon.AddDate(0, 0, -d), tag(store.TagTrigger, "rain", "bad weather"), anxious)
	}
	mustDetect(t, h, h.alice)
	res := h.do("GET", "/api/patterns?state=closed", h.tokenA, nil)
	var rejected string
	for _, item := range res.JSON(t)["data"].([]any) {
		if p := item.(map[string]any); p["name"] == "bad weather" {
			rejected = p["id"].(string)
		}
	}
	if rejected == "" {
		t.Fatalf("closed patterns = %s, want bad weather among them", res.Body)
	}
	if res := h.do("PATCH", "/api/patterns/"+rejected, h.tokenA, map[string]string{"status": "rejected"}); res.Status != 200 {
		t.Fatalf("reject: %d %s", res.Status, res.Body)
	}

	for _, c := range []struct{ name, query, want string }{
		{"All", "", "skipping meals, reading, running (closed), criticism at work (closed)"},
		{"Open", "?state=open", "skipping meals, reading"},
		{"Closed", "?state=closed", "running (closed), criticism at work (closed)"},
		{"ClosedSecondPage", "?state=closed&limit=1&page=2", "criticism at work (closed)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := listNames(t, h, "/api/patterns"+c.query); got != c.want {
				t.Fatalf("list = %s\nwant   %s", got, c.want)
			}
		})
	}
	h.run([]scenario{
		{name: "LinksKeepState", method: "GET", path: "/api/patterns?state=closed&limit=1", token: h.tokenA, status: 200,
			contains: []string{`"total":2`, `"next":"` + h.srv.URL + `/api/patterns?limit=1&page=2&state=closed"`}},
		{name: "ErrState", invalid: true, method: "GET", path: "/api/patterns?state=quiet", token: h.tokenA, status: 422,
			contains: []string{`"errors":{"state":[`}},
		{name: "Documented", method: "GET", path: "/api/openapi.json", status: 200, contains: []string{`"name":"state"`}},
	})
}

// An accepted pattern whose captures are all deleted keeps the sentiment of
// its kind and closes.
func TestAcceptedPatternLosesAllCaptures(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.Analyser = detecting{detect.NewDetector(o.Store, nil)} })
	ids := seed(t, h, h.alice)
	walking := ""
	for _, d := range []int{4, 5, 6} { // seed's walks gave no pattern: no feeling came with them
		write(t, h, h.alice, h.store.Now().UTC().AddDate(0, 0, -d), store.NewTag{Type: store.TagGoodBehaviour, Name: "walked", NewCategory: "walking"},
			store.NewTag{Type: store.TagNegativeFeeling, Name: "tired", FeelingID: "tired"})
	}
	mustDetect(t, h, h.alice)
	list, _, err := h.store.ListPatterns(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.Name == "walking" {
			walking = p.ID
		}
	}
	ids["walking"] = walking
	for name, want := range map[string]string{"walking": "positive", "skipping meals": "negative", "criticism at work": "negative"} {
		t.Run(name, func(t *testing.T) {
			id := ids[name]
			if res := h.do("PATCH", "/api/patterns/"+id, h.tokenA, map[string]string{"status": "accepted"}); res.Status != 200 {
				t.Fatalf("accept: %d %s", res.Status, res.Body)
			}
			data := h.do("GET", "/api/patterns/"+id, h.tokenA, nil).JSON(t)["data"].(map[string]any)
			if data["sentiment"] != want {
				t.Fatalf("sentiment before = %v, want %s", data["sentiment"], want)
			}
			for _, c := range data["captures"].([]any) {
				if res := h.do("DELETE", "/api/captures/"+c.(map[string]any)["id"].(string), h.tokenA, nil); res.Status != 204 {
					t.Fatalf("delete: %d", res.Status)
				}
			}
			res := h.do("GET", "/api/patterns/"+id, h.tokenA, nil)
			data = res.JSON(t)["data"].(map[string]any)
			if data["sentiment"] != want || data["closed_at"] == nil || data["status"] != "accepted" || data["captures_count"] != 0.0 {
				t.Fatalf("after deleting every capture: %s\nwant sentiment %s, closed, still accepted", res.Body, want)
			}
		})
	}
}

// A correlation keeps its id while its pattern and tag stay in the top
// list, though its counts change, so a review made from an earlier read
// still finds it.
func TestCorrelationIDsAreStable(t *testing.T) {
	h := newHarness(t)
	work := seed(t, h, h.alice)["criticism at work"]
	corrID := func() string {
		data := h.do("GET", "/api/patterns/"+work, h.tokenA, nil).JSON(t)["data"].(map[string]any)
		corrs := data["correlations"].([]any)
		if len(corrs) != 1 {
			t.Fatalf("correlations = %v, want Anna's", corrs)
		}
		return corrs[0].(map[string]any)["id"].(string)
	}
	before := corrID()
	// Another day with the boss and Anna: the amount changes.
	write(t, h, h.alice, h.store.Now().UTC().AddDate(0, 0, -10),
		store.NewTag{Type: store.TagTrigger, Name: "boss shouting", NewCategory: "criticism at work"},
		store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
		store.NewTag{Type: store.TagPerson, Name: "Anna"})
	mustDetect(t, h, h.alice)
	if after := corrID(); after != before {
		t.Fatalf("correlation id changed from %s to %s on a run that kept it", before, after)
	}
	h.run([]scenario{
		{name: "ReviewEarlierRead", method: "PATCH", path: "/api/correlations/" + before, token: h.tokenA,
			body: map[string]string{"status": "accepted"}, status: 200, contains: []string{`"amount":4`, `"status":"accepted"`}},
	})
}

// Huge page numbers give an empty page with sane links and meta on every list.
func TestHugePage(t *testing.T) {
	h := newHarness(t)
	seed(t, h, h.alice)
	for _, list := range []string{"/api/captures", "/api/patterns", "/api/apps"} {
		// (2^62+1 - 1) * 4 wraps to 0 in 64 bits: the first page's items.
		for _, page := range []string{"9223372036854775807", "1000000000000", "4611686018427387905"} {
			t.Run(list+"?page="+page, func(t *testing.T) {
				res := h.do("GET", list+"?limit=4&page="+page, h.tokenA, nil)
				if res.Status != 200 {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
				body := res.JSON(t)
				meta := body["meta"].(map[string]any)
				links := body["links"].(map[string]any)
				if len(body["data"].([]any)) != 0 || meta["from"] != nil || meta["to"] != nil || links["next"] != nil {
					t.Fatalf("want an empty page with null from, to and next: %s", res.Body)
				}
				if got := fmt.Sprint(meta["current_page"]); got != fmt.Sprint(mustFloat(t, page)) {
					t.Errorf("current_page = %s, want %s", got, page)
				}
				last := fmt.Sprint(meta["last_page"])
				if prev, _ := links["prev"].(string); !strings.HasSuffix(prev, "page="+last) {
					t.Errorf("prev = %v, want the last page (%s)", links["prev"], last)
				}
				if strings.Contains(string(res.Body), "page=-") {
					t.Errorf("a negative page link: %s", res.Body)
				}
				for _, l := range meta["links"].([]any) {
					label := l.(map[string]any)["label"].(string)
					if strings.HasPrefix(label, "-") || (label != "« Previous" && label != "Next »" && label != "..." && len(label) > 3) {
						t.Errorf("paginator label %q", label)
					}
				}
			})
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// Dates outside years 1 to 9999 are refused, naming the field.
func TestDateBounds(t *testing.T) {
	h := newHarness(t)
	h.run([]scenario{
		{name: "TimelineFromYear0", method: "GET", path: "/api/timeline?from=0000-12-31&to=0001-01-02", token: h.tokenA, status: 422,
			contains: []string{`"errors":{"from":[`}},
		{name: "TimelineToYear0", method: "GET", path: "/api/timeline?from=0000-12-01&to=0000-12-02", token: h.tokenA, status: 422,
			contains: []string{`"errors":{"to":["The to must be a date between 0001-01-01 and 9999-12-31."]}`}},
		{name: "TimelineYear1", method: "GET", path: "/api/timeline?from=0001-01-01&to=0001-01-02", token: h.tokenA, status: 200,
			contains: []string{`"date":"0001-01-01"`, `"date":"0001-01-02"`}},
		{name: "TimelineYear9999", method: "GET", path: "/api/timeline?from=9999-12-30&to=9999-12-31", token: h.tokenA, status: 200,
			contains: []string{`"date":"9999-12-31"`}, notContains: []string{`"date":"10000`}},
		{name: "TimelineYear10000", invalid: true, method: "GET", path: "/api/timeline?from=9999-12-30&to=10000-01-01", token: h.tokenA, status: 422,
			contains: []string{`"errors":{"to":[`}},
		{name: "CaptureYear0", method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "x", "occurred_at": "0000-06-01T00:00:00Z"}, status: 422, contains: []string{`"occurred_at":[`}},
		{name: "CaptureYear10000", invalid: true, method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "x", "occurred_at": "10000-06-01T00:00:00Z"}, status: 422, contains: []string{`"occurred_at":[`}},
		{name: "CaptureYear1Offset", method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "x", "occurred_at": "0001-01-01T00:00:00+01:00"}, status: 422, contains: []string{`"occurred_at":[`}},
	})
}

// Across a daylight-saving change that skips midnight, each local date comes
// once, and captures land on their own local day.
func TestTimelineSkippedMidnight(t *testing.T) {
	h := newHarness(t)
	if res := h.do("PUT", "/api/settings/me/timezone", h.tokenA, map[string]string{"value": "America/Santiago"}); res.Status != 200 {
		t.Fatal(res.Status)
	}
	santiago := mustZone(t, "America/Santiago")
	// 23:30 on the 5th (-04) and 01:30 on the 6th (-03), the first minutes after the jump.
	late := write(t, h, h.alice, time.Date(2026, 9, 5, 23, 30, 0, 0, santiago))
	early := write(t, h, h.alice, time.Date(2026, 9, 6, 1, 30, 0, 0, santiago))
	res := h.do("GET", "/api/timeline?from=2026-09-04&to=2026-09-08", h.tokenA, nil)
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	var dates []string
	byDate := map[string]string{}
	for _, d := range res.JSON(t)["data"].([]any) {
		day := d.(map[string]any)
		dates = append(dates, day["date"].(string))
		for _, c := range day["captures"].([]any) {
			byDate[c.(map[string]any)["id"].(string)] = day["date"].(string)
		}
	}
	if got, want := strings.Join(dates, " "), "2026-09-04 2026-09-05 2026-09-06 2026-09-07 2026-09-08"; got != want {
		t.Fatalf("dates = %s\nwant    %s", got, want)
	}
	if byDate[late] != "2026-09-05" || byDate[early] != "2026-09-06" {
		t.Fatalf("captures by date = %v, want 23:30 on the 5th and 01:30 on the 6th", byDate)
	}
}
