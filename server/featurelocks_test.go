package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// lockWrite queues a capture of the user at the time, as writing does.
func lockWrite(t *testing.T, h *harness, u *store.User, at time.Time) *store.Capture {
	t.Helper()
	c := &store.Capture{UserID: u.ID, Original: "A day.", OccurredAt: at}
	if err := h.store.CreateCapture(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// lockAnalyse writes a capture at the time and commits one segment with the
// tags, as a finished run does. Nothing else may be queued meanwhile.
func lockAnalyse(t *testing.T, h *harness, u *store.User, at time.Time, tags ...store.NewTag) {
	t.Helper()
	ctx := context.Background()
	c := lockWrite(t, h, u, at)
	if _, err := h.store.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en",
		Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: tags}}}); err != nil {
		t.Fatal(err)
	}
}

// lockGet asks for a feature lock and decodes it, failing unless it is a 200.
func lockGet(t *testing.T, h *harness, path, token string) map[string]any {
	t.Helper()
	res := h.do("GET", "/api/feature-locks/me/"+path, token, nil)
	if res.Status != 200 {
		t.Fatalf("GET %s: status %d: %s", path, res.Status, res.Body)
	}
	return res.JSON(t)["data"].(map[string]any)
}

// wantProgress checks locked and progress of a decoded lock.
func wantProgress(t *testing.T, lock map[string]any, locked bool, current, required int) {
	t.Helper()
	p := lock["progress"].(map[string]any)
	if lock["locked"] != locked || p["current"] != float64(current) || p["required"] != float64(required) {
		t.Errorf("lock = %v, want locked %v with progress %d of %d", lock, locked, current, required)
	}
}

func TestFeatureLockPatterns(t *testing.T) {
	t.Setenv(storetest.TimezoneVar, "") // its days are cut in UTC, then in Berlin
	h := newHarness(t)
	ctx := context.Background()
	day := h.store.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -10)

	// A failed capture is not writing that counts.
	failed := lockWrite(t, h, h.alice, day.AddDate(0, 0, 5).Add(9*time.Hour))
	if _, err := h.store.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.store.FailCapture(ctx, failed.ID); err != nil {
		t.Fatal(err)
	}
	// 10:00 and 23:30 UTC are one day in UTC, two in Berlin (00:30 the next day there).
	lockWrite(t, h, h.alice, day.Add(10*time.Hour))
	lockWrite(t, h, h.alice, day.Add(23*time.Hour+30*time.Minute))

	t.Run("LockedInUTC", func(t *testing.T) {
		lock := lockGet(t, h, "patterns", h.tokenA)
		wantProgress(t, lock, true, 1, 3)
		if got, want := lock["reason"], "Patterns show once you have written on 3 different days; you have written on 1, so write on 2 more."; got != want {
			t.Errorf("reason = %q, want %q", got, want)
		}
	})
	if res := h.do("PUT", "/api/settings/me/timezone", h.tokenA, map[string]string{"value": "Europe/Berlin"}); res.Status != 200 {
		t.Fatalf("set timezone: %d %s", res.Status, res.Body)
	}
	t.Run("Shape", func(t *testing.T) {
		res := h.do("GET", "/api/feature-locks/me/patterns", h.tokenA, nil)
		want := `{"data":{"type":"patterns","scope":null,"locked":true,` +
			`"reason":"Patterns show once you have written on 3 different days; you have written on 2, so write on 1 more.",` +
			`"progress":{"current":2,"required":3}}}`
		if res.Status != 200 || string(res.Body) != want+"\n" && string(res.Body) != want {
			t.Fatalf("got %d %s\nwant %s", res.Status, res.Body, want)
		}
		var body map[string]map[string]json.RawMessage
		if err := json.Unmarshal(res.Body, &body); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range body["data"] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if got, want := keys, []string{"locked", "progress", "reason", "scope", "type"}; !slices.Equal(got, want) {
			t.Errorf("fields = %v, want %v", got, want)
		}
	})
	t.Run("EmptyScopeIsNone", func(t *testing.T) {
		lock := lockGet(t, h, "patterns?scope=", h.tokenA)
		if v, ok := lock["scope"]; !ok || v != nil {
			t.Errorf("scope = %v (present %v), want null", v, ok)
		}
	})
	t.Run("OpenAtThreeDays", func(t *testing.T) {
		lockWrite(t, h, h.alice, day.AddDate(0, 0, 2).Add(12*time.Hour))
		lock := lockGet(t, h, "patterns", h.tokenA)
		wantProgress(t, lock, false, 3, 3)
		if got, want := lock["reason"], "Open: you have written on 3 different days."; got != want {
			t.Errorf("reason = %q, want %q", got, want)
		}
	})
	t.Run("CurrentCapped", func(t *testing.T) {
		lockWrite(t, h, h.alice, day.AddDate(0, 0, 3).Add(12*time.Hour))
		lock := lockGet(t, h, "patterns", h.tokenA)
		wantProgress(t, lock, false, 3, 3)
		if got, want := lock["reason"], "Open: you have written on 4 different days."; got != want {
			t.Errorf("reason = %q, want %q", got, want)
		}
	})
	t.Run("OthersCountTheirOwn", func(t *testing.T) {
		wantProgress(t, lockGet(t, h, "patterns", h.tokenB), true, 0, 3)
	})

	noPatterns := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")
	readOnly := storetest.MustCreateToken(t, h.store, h.alice.ID, "patterns:read")
	h.run([]scenario{
		{name: "ScopeGranted", method: "GET", path: "/api/feature-locks/me/patterns", token: readOnly, status: 200},
		{name: "ErrNoToken", method: "GET", path: "/api/feature-locks/me/patterns", status: 401,
			contains: []string{`{"message":"Unauthenticated."}`}},
		{name: "ErrMissingScope", method: "GET", path: "/api/feature-locks/me/patterns", token: noPatterns, status: 403,
			contains: []string{`{"message":"This token lacks the patterns:read scope."}`}},
		{name: "ErrUnknownType", invalid: true, method: "GET", path: "/api/feature-locks/me/moods", token: h.tokenA, status: 422,
			contains: []string{`"errors":{"type":["The type must be one of: patterns, correlations, flows."]}`}},
		{name: "ErrScopeOnPatterns", method: "GET", path: "/api/feature-locks/me/patterns?scope=anything", token: h.tokenA, status: 422,
			contains: []string{`{"message":"The patterns lock takes no scope; leave scope out.","errors":{"scope":["The patterns lock takes no scope; leave scope out."]}}`}},
	})
}

func TestFeatureLockCorrelationsAndFlows(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	// Alice: three days with "criticism at work" and three without.
	work := seed(t, h, h.alice)["criticism at work"]
	if work == "" {
		t.Fatal("seed made no criticism at work pattern")
	}
	// Bob: three days of the boss shouting and feeling anxious, never a
	// behaviour, so a pattern with no day without it and no flow.
	noon := h.store.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	for d := 1; d <= 3; d++ {
		lockAnalyse(t, h, h.bob, noon.AddDate(0, 0, -d),
			store.NewTag{Type: store.TagTrigger, Name: "boss shouting", NewCategory: "criticism at work"},
			store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"})
	}
	if err := detect.NewDetector(h.store, nil).Detect(ctx, h.bob.ID); err != nil {
		t.Fatal(err)
	}
	list, _, err := h.store.ListPatterns(ctx, h.bob.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("bob's patterns = %v, %v; want one", list, err)
	}
	bobs := list[0].ID

	t.Run("CorrelationsOpen", func(t *testing.T) {
		lock := lockGet(t, h, "correlations?scope="+work, h.tokenA)
		wantProgress(t, lock, false, 6, 6)
		if lock["type"] != "correlations" || lock["scope"] != work {
			t.Errorf("lock = %v, want type correlations and scope %s", lock, work)
		}
		if got, want := lock["reason"], "Open: there are 3 days with this pattern and 3 without it to compare."; got != want {
			t.Errorf("reason = %q, want %q", got, want)
		}
	})
	t.Run("CorrelationsLockedNoDaysWithout", func(t *testing.T) {
		lock := lockGet(t, h, "correlations?scope="+bobs, h.tokenB)
		wantProgress(t, lock, true, 3, 6)
		if got, want := lock["reason"], "Correlations compare days with this pattern against days without it and need 3 of each; you have 3 days with it and 0 without, so write on 3 more days when it does not."; got != want {
			t.Errorf("reason = %q, want %q", got, want)
		}
	})
	t.Run("CorrelationsUnscoped", func(t *testing.T) {
		wantProgress(t, lockGet(t, h, "correlations", h.tokenA), false, 6, 6)
		lock := lockGet(t, h, "correlations", h.tokenB)
		wantProgress(t, lock, true, 3, 6)
		if lock["scope"] != nil {
			t.Errorf("scope = %v, want null", lock["scope"])
		}
	})
	t.Run("FlowsOpen", func(t *testing.T) {
		lock := lockGet(t, h, "flows?scope="+work, h.tokenA)
		wantProgress(t, lock, false, 1, 1)
		if got, want := lock["reason"], "Open: this pattern has 3 flows."; got != want {
			t.Errorf("reason = %q, want %q", got, want)
		}
		wantProgress(t, lockGet(t, h, "flows", h.tokenA), false, 1, 1)
	})
	t.Run("FlowsLocked", func(t *testing.T) {
		wantProgress(t, lockGet(t, h, "flows?scope="+bobs, h.tokenB), true, 0, 1)
		wantProgress(t, lockGet(t, h, "flows", h.tokenB), true, 0, 1)
	})

	h.run([]scenario{
		{name: "ErrOthersPatternCorrelations", method: "GET", path: "/api/feature-locks/me/correlations?scope=" + work, token: h.tokenB, status: 404,
			notContains: []string{"criticism", `"data"`}},
		{name: "ErrOthersPatternFlows", method: "GET", path: "/api/feature-locks/me/flows?scope=" + work, token: h.tokenB, status: 404},
		{name: "ErrUnknownPattern", method: "GET", path: "/api/feature-locks/me/correlations?scope=0190c5a0-0000-7000-8000-000000000000", token: h.tokenA, status: 404},
		{name: "ErrUnknownPatternFlows", method: "GET", path: "/api/feature-locks/me/flows?scope=nope", token: h.tokenA, status: 404},
	})

	t.Run("RejectedStillYours", func(t *testing.T) {
		if res := h.do("PATCH", "/api/patterns/"+work, h.tokenA, map[string]string{"status": "rejected"}); res.Status != 200 {
			t.Fatalf("reject: %d %s", res.Status, res.Body)
		}
		// Rejecting drops its flows; its days are still there.
		wantProgress(t, lockGet(t, h, "flows?scope="+work, h.tokenA), true, 0, 1)
		wantProgress(t, lockGet(t, h, "correlations?scope="+work, h.tokenA), false, 6, 6)
	})
}

func TestFeatureLockOpenAPI(t *testing.T) {
	h := newHarness(t)
	paths := h.do("GET", "/api/openapi.json", "", nil).JSON(t)["paths"].(map[string]any)
	get := paths["/feature-locks/me/{type}"].(map[string]any)["get"].(map[string]any)
	var enum []any
	for _, p := range get["parameters"].([]any) {
		if p := p.(map[string]any); p["name"] == "type" && p["in"] == "path" {
			enum, _ = p["schema"].(map[string]any)["enum"].([]any)
		}
	}
	if got, want := enum, []any{"patterns", "correlations", "flows"}; !slices.Equal(got, want) {
		t.Errorf("type enum = %v, want %v", got, want)
	}
	desc := get["description"].(string)
	for _, s := range []string{"patterns:read", "- patterns:", "- correlations:", "- flows:", "3 different days"} {
		if !strings.Contains(desc, s) {
			t.Errorf("description lacks %q:\n%s", s, desc)
		}
	}
}
