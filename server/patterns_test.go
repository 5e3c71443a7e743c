package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// seed gives the user a history: on each of the last three days the boss
// criticised them with Anna there, they felt anxious and skipped lunch; on
// the three days before, a quiet walk. It runs detection and returns the
// pattern ids by name.
func seed(t *testing.T, h *harness, u *store.User) map[string]string {
	t.Helper()
	ctx := context.Background()
	noon := h.store.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	for d := 1; d <= 6; d++ {
		c := &store.Capture{UserID: u.ID, Original: "Boss shouted, Anna saw. I skipped lunch.", OccurredAt: noon.AddDate(0, 0, -d)}
		if err := h.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := h.store.ClaimCapture(ctx); err != nil {
			t.Fatal(err)
		}
		tags := []store.NewTag{
			{Type: store.TagTrigger, Name: "boss shouting", NewCategory: "criticism at work"},
			{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
			{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"},
			{Type: store.TagPerson, Name: "Anna"},
		}
		if d > 3 {
			tags = []store.NewTag{{Type: store.TagGoodBehaviour, Name: "walked", NewCategory: "walking"}, {Type: store.TagLocation, Name: "the park"}}
		}
		if err := h.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en",
			Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: tags}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := detect.NewDetector(h.store, nil).Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	list, _, err := h.store.ListPatterns(ctx, u.ID, store.Page{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, p := range list {
		ids[p.Name] = p.ID
	}
	return ids
}

// detecting is an Analyser that runs real detection, as the pipeline does.
type detecting struct{ d *detect.Detector }

func (a detecting) Notify()           {}
func (a detecting) Redescribe(string) {}
func (a detecting) Redetect(ctx context.Context, userID string) error {
	return a.d.Detect(ctx, userID)
}

func TestPatterns(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.Analyser = detecting{detect.NewDetector(o.Store, nil)} })
	ids := seed(t, h, h.alice)
	work := ids["criticism at work"]
	if work == "" || ids["skipping meals"] == "" || len(ids) != 2 {
		t.Fatalf("patterns = %v, want criticism at work and skipping meals", ids)
	}
	res := h.do("GET", "/api/patterns/"+work, h.tokenA, nil)
	if res.Status != 200 {
		t.Fatalf("get: %d %s", res.Status, res.Body)
	}
	data := res.JSON(t)["data"].(map[string]any)
	corrs := data["correlations"].([]any)
	if len(corrs) != 1 || len(data["captures"].([]any)) != 3 || len(data["flows"].([]any)) != 3 {
		t.Fatalf("pattern = %s", res.Body)
	}
	corrID := corrs[0].(map[string]any)["id"].(string)
	// Bob's journal tells the same loop; his patterns never show in Alice's.
	bobs := seed(t, h, h.bob)
	workRelated := `"related":[{"id":"` + ids["skipping meals"] + `","name":"skipping meals","kind":"bad_behaviour","shared_days":3}]`
	mealsRelated := `"related":[{"id":"` + work + `","name":"criticism at work","kind":"trigger","shared_days":3}]`
	readOnly := storeToken(h.alice.ID, "patterns:read")
	ro, err := h.store.CreateToken(context.Background(), readOnly)
	if err != nil {
		t.Fatal(err)
	}

	h.run([]scenario{
		{name: "List", method: "GET", path: "/api/patterns", token: h.tokenA, status: 200,
			contains: []string{`"name":"criticism at work"`, `"name":"skipping meals"`, `"total":2`, `"urgent":true`,
				`"feelings":[{"id":"anxious","name":"anxious"}]`, `"sentiment":"negative"`, workRelated, mealsRelated},
			notContains: []string{`"captures":`, `"flows":`, bobs["criticism at work"], bobs["skipping meals"]}},
		{name: "ListOthers", method: "GET", path: "/api/patterns", token: h.tokenB, status: 200,
			notContains: []string{work, ids["skipping meals"]}},
		{name: "GetShape", method: "GET", path: "/api/patterns/" + work, token: h.tokenA, status: 200,
			contains: []string{`"tag":{"id":`, `"type":"person","name":"Anna"}`, `"impact":"high"`, `"amount":3`,
				`"trigger":"boss shouting","feeling":"anxious","behaviour":"skipped lunch"`, `"closed_at":null`, workRelated},
			notContains: []string{bobs["skipping meals"]}},
		{name: "GetOthers", method: "GET", path: "/api/patterns/" + work, token: h.tokenB, status: 404, notContains: []string{"criticism"}},
		{name: "ReviewOthers", method: "PATCH", path: "/api/patterns/" + work, token: h.tokenB, body: map[string]string{"status": "accepted"}, status: 404},
		{name: "ReviewBadStatus", invalid: true, method: "PATCH", path: "/api/patterns/" + work, token: h.tokenA, body: map[string]string{"status": "maybe"}, status: 422,
			contains: []string{`"status":["The status must be one of: accepted, rejected, detected."]`}},
		{name: "ReviewNoBody", invalid: true, method: "PATCH", path: "/api/patterns/" + work, token: h.tokenA, status: 422},
		{name: "ReviewScope", method: "PATCH", path: "/api/patterns/" + work, token: ro, body: map[string]string{"status": "accepted"}, status: 403,
			contains: []string{"patterns:review"}},
		{name: "CorrelationOthers", method: "PATCH", path: "/api/correlations/" + corrID, token: h.tokenB, body: map[string]string{"status": "accepted"}, status: 404},
		{name: "CorrelationBadStatus", invalid: true, method: "PATCH", path: "/api/correlations/" + corrID, token: h.tokenA, body: map[string]string{"status": "maybe"}, status: 422,
			contains: []string{`"status":[`}},
		{name: "CorrelationMissing", method: "PATCH", path: "/api/correlations/01900000-0000-7000-8000-000000000000", token: h.tokenA, body: map[string]string{"status": "accepted"}, status: 404},
		{name: "CorrelationAccept", method: "PATCH", path: "/api/correlations/" + corrID, token: h.tokenA, body: map[string]string{"status": "accepted"}, status: 200,
			contains: []string{`"status":"accepted"`, `"name":"Anna"`}},
		{name: "Accept", method: "PATCH", path: "/api/patterns/" + work, token: h.tokenA, body: map[string]string{"status": "accepted"}, status: 200,
			contains: []string{`"status":"accepted"`, `"correlations":[{`}},
		{name: "DetectedOnlyFromRejected", method: "PATCH", path: "/api/patterns/" + work, token: h.tokenA, body: map[string]string{"status": "detected"}, status: 422,
			contains: []string{`"status":["Only a rejected pattern goes back to detected; this one is accepted."]`}},
		{name: "NoToken", method: "GET", path: "/api/patterns", status: 401},
	})

	t.Run("RejectCorrelation", func(t *testing.T) {
		meals := ids["skipping meals"]
		data := h.do("GET", "/api/patterns/"+meals, h.tokenA, nil).JSON(t)["data"].(map[string]any)
		id := data["correlations"].([]any)[0].(map[string]any)["id"].(string)
		if res := h.do("PATCH", "/api/correlations/"+id, h.tokenA, map[string]string{"status": "rejected"}); res.Status != 200 {
			t.Fatalf("reject: %d %s", res.Status, res.Body)
		}
		if err := detect.NewDetector(h.store, nil).Detect(context.Background(), h.alice.ID); err != nil {
			t.Fatal(err)
		}
		res := h.do("GET", "/api/patterns/"+meals, h.tokenA, nil)
		if strings.Contains(string(res.Body), "Anna") {
			t.Fatalf("a rejected correlation came back: %s", res.Body)
		}
	})
	t.Run("RejectPattern", func(t *testing.T) {
		res := h.do("PATCH", "/api/patterns/"+work, h.tokenA, map[string]string{"status": "rejected"})
		data := res.JSON(t)["data"].(map[string]any)
		if res.Status != 200 || data["status"] != "rejected" || data["closed_at"] == nil ||
			len(data["correlations"].([]any)) != 0 || len(data["flows"].([]any)) != 0 || len(data["related"].([]any)) != 0 {
			t.Fatalf("rejected pattern = %d %s", res.Status, res.Body)
		}
		if meals := h.do("GET", "/api/patterns/"+ids["skipping meals"], h.tokenA, nil); !strings.Contains(string(meals.Body), `"related":[]`) {
			t.Fatalf("a rejected pattern is still related: %s", meals.Body)
		}
		if err := detect.NewDetector(h.store, nil).Detect(context.Background(), h.alice.ID); err != nil {
			t.Fatal(err)
		}
		if list := h.do("GET", "/api/patterns", h.tokenA, nil); strings.Contains(string(list.Body), "criticism at work") {
			t.Fatalf("a rejected pattern is listed: %s", list.Body)
		}
		again := h.do("GET", "/api/patterns/"+work, h.tokenA, nil)
		if again.Status != 200 || !strings.Contains(string(again.Body), `"flows":[]`) || !strings.Contains(string(again.Body), `"status":"rejected"`) {
			t.Fatalf("rejected pattern after another run = %d %s", again.Status, again.Body)
		}
		cats, _ := h.store.Categories(context.Background(), h.alice.ID, store.TagTrigger)
		if len(cats) != 1 || !cats[0].Rejected {
			t.Fatalf("categories = %+v, want criticism at work rejected", cats)
		}
	})
	t.Run("RestoreRejected", func(t *testing.T) {
		res := h.do("PATCH", "/api/patterns/"+work, h.tokenA, map[string]string{"status": "detected"})
		data := res.JSON(t)["data"].(map[string]any)
		if res.Status != 200 || data["status"] != "detected" || len(data["flows"].([]any)) != 3 || len(data["correlations"].([]any)) != 1 {
			t.Fatalf("restored pattern = %d %s, want detected with its 3 flows and its correlation counted again", res.Status, res.Body)
		}
		if list := h.do("GET", "/api/patterns", h.tokenA, nil); !strings.Contains(string(list.Body), "criticism at work") {
			t.Fatalf("a restored pattern is not listed: %s", list.Body)
		}
		cats, _ := h.store.Categories(context.Background(), h.alice.ID, store.TagTrigger)
		if len(cats) != 1 || cats[0].Rejected {
			t.Fatalf("categories = %+v, want criticism at work no longer rejected", cats)
		}
		if res := h.do("PATCH", "/api/patterns/"+work, h.tokenA, map[string]string{"status": "rejected"}); res.Status != 200 {
			t.Fatalf("reject again: %d %s", res.Status, res.Body)
		}
	})
	t.Run("AcceptRejected", func(t *testing.T) {
		res := h.do("PATCH", "/api/patterns/"+work, h.tokenA, map[string]string{"status": "accepted"})
		data := res.JSON(t)["data"].(map[string]any)
		if res.Status != 200 || data["status"] != "accepted" || data["closed_at"] != nil || len(data["flows"].([]any)) != 3 {
			t.Fatalf("un-rejected pattern = %d %s", res.Status, res.Body)
		}
	})
}

func TestDeleteClosesPattern(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.Analyser = detecting{detect.NewDetector(o.Store, nil)} })
	work := seed(t, h, h.alice)["criticism at work"]
	data := h.do("GET", "/api/patterns/"+work, h.tokenA, nil).JSON(t)["data"].(map[string]any)
	first := data["captures"].([]any)[0].(map[string]any)["id"].(string)
	if res := h.do("DELETE", "/api/captures/"+first, h.tokenA, nil); res.Status != 204 {
		t.Fatalf("delete: %d", res.Status)
	}
	res := h.do("GET", "/api/patterns/"+work, h.tokenA, nil)
	data = res.JSON(t)["data"].(map[string]any)
	if res.Status != 200 || data["closed_at"] == nil || data["captures_count"] != 2.0 {
		t.Fatalf("after deleting one of its three days: %s", res.Body)
	}
	if list := h.do("GET", "/api/patterns?state=open", h.tokenA, nil); strings.Contains(string(list.Body), work) {
		t.Fatalf("a closed pattern is listed as open: %s", list.Body)
	}
	if list := h.do("GET", "/api/patterns?state=closed", h.tokenA, nil); !strings.Contains(string(list.Body), work) {
		t.Fatalf("a closed pattern is not listed as closed: %s", list.Body)
	}
}

func TestTimeline(t *testing.T) {
	t.Setenv(storetest.TimezoneVar, "") // its journal is laid out in UTC days
	h := newHarness(t)
	seed(t, h, h.alice)
	today := h.store.Now().UTC()
	day := func(n int) string { return today.AddDate(0, 0, n).Format(time.DateOnly) }
	t.Run("Default30Days", func(t *testing.T) {
		res := h.do("GET", "/api/timeline", h.tokenA, nil)
		days := res.JSON(t)["data"].([]any)
		if res.Status != 200 || len(days) != 30 {
			t.Fatalf("%d days, status %d", len(days), res.Status)
		}
		last := days[29].(map[string]any)
		if last["date"] != day(0) || len(last["captures"].([]any)) != 0 || len(last["patterns"].([]any)) != 0 {
			t.Fatalf("today = %v, want an empty day", last)
		}
		yesterday := days[28].(map[string]any)
		if len(yesterday["captures"].([]any)) != 1 || len(yesterday["patterns"].([]any)) != 2 {
			t.Fatalf("yesterday = %v, want one capture and its two patterns", yesterday)
		}
		quiet := days[24].(map[string]any) // five days ago: a walk, no pattern
		if len(quiet["captures"].([]any)) != 1 || len(quiet["patterns"].([]any)) != 0 {
			t.Fatalf("five days ago = %v", quiet)
		}
	})
	h.run([]scenario{
		{name: "Range", method: "GET", path: "/api/timeline?from=" + day(-3) + "&to=" + day(-1), token: h.tokenA, status: 200,
			contains: []string{`"date":"` + day(-3) + `"`, `"date":"` + day(-1) + `"`}, notContains: []string{`"date":"` + day(0) + `"`}},
		{name: "SameDay", method: "GET", path: "/api/timeline?from=" + day(-1) + "&to=" + day(-1), token: h.tokenA, status: 200},
		{name: "OthersEmpty", method: "GET", path: "/api/timeline?from=" + day(-3) + "&to=" + day(-1), token: h.tokenB, status: 200,
			notContains: []string{`"status":"processed"`}},
		{name: "ErrToBeforeFrom", method: "GET", path: "/api/timeline?from=" + day(-1) + "&to=" + day(-2), token: h.tokenA, status: 422,
			contains: []string{`{"message":"The to must be a date on or after from.","errors":{"to":["The to must be a date on or after from."]}}`}},
		{name: "Span92", method: "GET", path: "/api/timeline?from=2026-01-01&to=2026-04-03", token: h.tokenA, status: 200},
		{name: "ErrSpan93", method: "GET", path: "/api/timeline?from=2026-01-01&to=2026-04-04", token: h.tokenA, status: 422,
			contains: []string{`"to":["The to may be at most 92 days after from."]`}},
		{name: "ErrBadFrom", invalid: true, method: "GET", path: "/api/timeline?from=yesterday", token: h.tokenA, status: 422,
			contains: []string{`"from":["The from must be a date in the form YYYY-MM-DD."]`}},
		{name: "ErrNoToken", method: "GET", path: "/api/timeline", status: 401},
	})
	t.Run("DaysInTimezone", func(t *testing.T) {
		// In Kiritimati (UTC+14) yesterday's noon UTC is already the next day.
		if res := h.do("PUT", "/api/settings/me/timezone", h.tokenA, map[string]string{"value": "Pacific/Kiritimati"}); res.Status != 200 {
			t.Fatal(res.Status)
		}
		noon := time.Date(today.Year(), today.Month(), today.Day()-1, 12, 0, 0, 0, time.UTC)
		local := noon.In(mustZone(t, "Pacific/Kiritimati")).Format(time.DateOnly) // 02:00 the next day
		if local == noon.Format(time.DateOnly) {
			t.Fatal("the test's premise is wrong")
		}
		res := h.do("GET", "/api/timeline?from="+local+"&to="+local, h.tokenA, nil)
		days := res.JSON(t)["data"].([]any)
		caps := days[0].(map[string]any)["captures"].([]any)
		if len(days) != 1 || len(caps) != 1 || caps[0].(map[string]any)["occurred_at"] != noon.Format("2006-01-02T15:04:05.000000Z") {
			t.Fatalf("%s in Kiritimati = %s, want the capture of %v UTC", local, res.Body, noon)
		}
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
