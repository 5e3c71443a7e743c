package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/server"
)

func TestCaptureSearch(t *testing.T) {
	h := newHarness(t)
	for _, text := range []string{"My boss <shouted> at me & I ate crisps.", "A walk with Lea.", "Boss again, boss."} {
		if res := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": text}); res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
	}
	if res := h.do("POST", "/api/captures", h.tokenB, map[string]string{"text": "Bob's boss is kind."}); res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	h.run([]scenario{
		{name: "Found", method: "GET", path: "/api/captures?q=boss", token: h.tokenA, status: 200,
			contains:    []string{`"total":2`, `"snippet":"My <mark>boss</mark> &lt;shouted&gt; at me &amp; I ate crisps."`, `<mark>Boss</mark> again`},
			notContains: []string{"Bob", "Lea"}},
		{name: "PageLinksKeepQ", method: "GET", path: "/api/captures?q=boss&limit=1", token: h.tokenA, status: 200,
			contains: []string{`"next":"` + h.srv.URL + `/api/captures?limit=1&page=2&q=boss"`}},
		{name: "NoQNoSnippet", method: "GET", path: "/api/captures", token: h.tokenA, status: 200,
			contains: []string{`"total":3`, `"snippet":null`}},
		{name: "OddSyntax", method: "GET", path: `/api/captures?q=%22boss%20OR%20(lea*`, token: h.tokenA, status: 200,
			contains: []string{`"total":0`}},
		{name: "OthersNeverMatch", method: "GET", path: "/api/captures?q=kind", token: h.tokenA, status: 200,
			contains: []string{`"total":0`}},
		{name: "ErrNoWord", method: "GET", path: "/api/captures?q=%22%22%20*", token: h.tokenA, status: 422,
			contains: []string{`"q":["The q must hold a word to search for."]`}},
		{name: "ErrNUL", method: "GET", path: "/api/captures?q=bo%00ss", token: h.tokenA, status: 422,
			contains: []string{`"q":["The q may not hold control characters."]`}},
		{name: "ErrTooManyWords", method: "GET", path: "/api/captures?q=one%20two%20three%20four%20five%20six%20seven%20eight%20nine", token: h.tokenA, status: 422,
			contains: []string{`"q":["The q may hold at most 8 different words; it has 9."]`}},
		{name: "RepeatedWordsCountOnce", method: "GET", path: "/api/captures?q=" + strings.Repeat("boss%20", 39), token: h.tokenA, status: 200,
			contains: []string{`"total":2`}},
		{name: "ErrTooLong", invalid: true, method: "GET", path: "/api/captures?q=" + strings.Repeat("b", 201), token: h.tokenA, status: 422,
			contains: []string{`"q":["The q may not be longer than 200 characters."]`}},
	})
}

func TestUpdateCaptureRoute(t *testing.T) {
	analyser := &countingAnalyser{}
	h := newHarness(t, func(o *server.Options) { o.Analyser = analyser })
	res := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": "Before.", "occurred_at": "2025-11-20T21:30:00Z"})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["data"].(map[string]any)["id"].(string)
	path := "/api/captures/" + id
	h.run([]scenario{
		{name: "ErrOthers", method: "PATCH", path: path, token: h.tokenB, body: map[string]string{"text": "Mine now."}, status: 404,
			contains: []string{`{"message":"Capture not found."}`}, notContains: []string{"Before."}},
		{name: "ErrMissing", method: "PATCH", path: "/api/captures/01234567-89ab-7def-8123-456789abcdef", token: h.tokenA, body: map[string]string{"text": "x"}, status: 404},
		{name: "ErrScope", method: "PATCH", path: path, token: readOnlyToken(t, h), body: map[string]string{"text": "x"}, status: 403,
			contains: []string{"captures:write"}},
		{name: "ErrNoToken", method: "PATCH", path: path, body: map[string]string{"text": "x"}, status: 401},
		{name: "ErrTextBlank", method: "PATCH", path: path, token: h.tokenA, body: map[string]string{"text": "  "}, status: 422,
			contains: []string{`"text":["The text field is required."]`}},
		{name: "ErrTextEmpty", invalid: true, method: "PATCH", path: path, token: h.tokenA, body: map[string]string{"text": ""}, status: 422,
			contains: []string{`"text":[`}},
		{name: "ErrTextTooLong", invalid: true, method: "PATCH", path: path, token: h.tokenA, body: map[string]string{"text": strings.Repeat("ü", 10001)}, status: 422,
			contains: []string{`"text":["The text may not be longer than 10000 characters."]`}},
		{name: "ErrFuture", method: "PATCH", path: path, token: h.tokenA,
			body: map[string]string{"occurred_at": h.store.Now().Add(49 * time.Hour).Format(time.RFC3339)}, status: 422,
			contains: []string{`"occurred_at":["The occurred_at may not be more than a day in the future."]`}},
		{name: "ErrBadTime", invalid: true, method: "PATCH", path: path, token: h.tokenA, body: map[string]string{"occurred_at": "yesterday"}, status: 422,
			contains: []string{`"occurred_at":[`}},
		{name: "ErrUnknownField", invalid: true, method: "PATCH", path: path, token: h.tokenA, body: map[string]string{"status": "processed"}, status: 422},
		{name: "ErrBadID", invalid: true, method: "PATCH", path: "/api/captures/nope", token: h.tokenA, body: map[string]string{"text": "x"}, status: 422},
	})
	if n, d := analyser.notified.Load(), analyser.redetected.Load(); n != 1 || d != 0 {
		t.Fatalf("after refused changes: notified %d, redetected %d; want only the create's notice", n, d)
	}

	res = h.do("PATCH", path, h.tokenA, map[string]string{"occurred_at": "2025-11-19T08:00:00+01:00"})
	if got := res.JSON(t)["data"].(map[string]any); res.Status != 200 || got["occurred_at"] != "2025-11-19T07:00:00.000000Z" || got["original"] != "Before." {
		t.Fatalf("move: %d %s", res.Status, res.Body)
	}
	if n, d := analyser.notified.Load(), analyser.redetected.Load(); n != 1 || d != 1 {
		t.Fatalf("after a move: notified %d, redetected %d; want detection run again, no new analysis", n, d)
	}

	res = h.do("PATCH", path, h.tokenA, map[string]string{"text": "After."})
	if got := res.JSON(t)["data"].(map[string]any); res.Status != 200 || got["original"] != "After." || got["status"] != "queued" {
		t.Fatalf("new text: %d %s", res.Status, res.Body)
	}
	if n := analyser.notified.Load(); n != 2 {
		t.Fatalf("after a new text the pipeline was notified %d times, want 2", n)
	}
	res = h.do("PATCH", path, h.tokenA, map[string]string{})
	if res.Status != 200 || analyser.notified.Load() != 2 || analyser.redetected.Load() != 1 {
		t.Fatalf("empty change: %d %s; it must change nothing and set nothing off", res.Status, res.Body)
	}
}
