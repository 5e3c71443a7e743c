package server_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-journal/recur/server"
)

// countingAnalyser records what the API told the pipeline.
type countingAnalyser struct {
	notified, redetected, redescribed atomic.Int32
}

func (a *countingAnalyser) Redescribe(string) { a.redescribed.Add(1) }

func (a *countingAnalyser) Notify() { a.notified.Add(1) }
func (a *countingAnalyser) Redetect(context.Context, string) error {
	a.redetected.Add(1)
	return nil
}

func TestCaptures(t *testing.T) {
	analyser := &countingAnalyser{}
	h := newHarness(t, func(o *server.Options) { o.Analyser = analyser })

	res := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": "My boss shouted at me. I ate a whole bag of crisps.", "occurred_at": "2025-11-20T21:30:00+01:00"})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	created := res.JSON(t)["data"].(map[string]any)
	id := created["id"].(string)
	if got, want := created["status"], "queued"; got != want {
		t.Errorf("status = %v, want %v", got, want)
	}
	if got, want := created["occurred_at"], "2025-11-20T20:30:00.000000Z"; got != want {
		t.Errorf("occurred_at = %v, want %v (UTC, six digits)", got, want)
	}
	if got := analyser.notified.Load(); got != 1 {
		t.Errorf("pipeline notified %d times, want 1", got)
	}

	h.run([]scenario{
		{name: "GetOwn", method: "GET", path: "/api/captures/" + id, token: h.tokenA, status: 200,
			contains: []string{`"original":"My boss shouted at me. I ate a whole bag of crisps."`, `"segments":[]`, `"origin":"text"`}},
		{name: "GetOthers", method: "GET", path: "/api/captures/" + id, token: h.tokenB, status: 404,
			contains: []string{`{"message":"Capture not found."}`}, notContains: []string{"crisps"}},
		{name: "GetMissing", method: "GET", path: "/api/captures/01234567-89ab-7def-8123-456789abcdef", token: h.tokenA, status: 404},
		{name: "DeleteOthers", method: "DELETE", path: "/api/captures/" + id, token: h.tokenB, status: 404},
		{name: "ListOthers", method: "GET", path: "/api/captures", token: h.tokenB, status: 200,
			contains: []string{`"data":[]`, `"total":0`}},
		{name: "ErrTextMissing", invalid: true, method: "POST", path: "/api/captures", token: h.tokenA, body: map[string]string{}, status: 422,
			contains: []string{`"text":["The text field is required."]`}},
		{name: "ErrTextBlank", method: "POST", path: "/api/captures", token: h.tokenA, body: map[string]string{"text": " \n "}, status: 422,
			contains: []string{`"text":["The text field is required."]`}},
		{name: "ErrTextTooLong", invalid: true, method: "POST", path: "/api/captures", token: h.tokenA, body: map[string]string{"text": strings.Repeat("ü", 10001)}, status: 422,
			contains: []string{`"text":["The text may not be longer than 10000 characters."]`}},
		{name: "ErrFuture", method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "tomorrow", "occurred_at": h.store.Now().Add(49 * time.Hour).Format(time.RFC3339)}, status: 422,
			contains: []string{`"occurred_at":["The occurred_at may not be more than a day in the future."]`}},
		{name: "ErrBadTime", invalid: true, method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "x", "occurred_at": "yesterday"}, status: 422, contains: []string{`"occurred_at":[`}},
		{name: "ErrLimit", invalid: true, method: "GET", path: "/api/captures?limit=1001", token: h.tokenA, status: 422,
			contains: []string{`"limit":["The limit may not be greater than 1000."]`}},
		{name: "ErrLimitZero", invalid: true, method: "GET", path: "/api/captures?limit=0", token: h.tokenA, status: 422,
			contains: []string{`"limit":["The limit must be at least 1."]`}},
		{name: "ErrPage", invalid: true, method: "GET", path: "/api/captures?page=0", token: h.tokenA, status: 422,
			contains: []string{`"page":["The page must be at least 1."]`}},
		{name: "ErrPageNotNumber", invalid: true, method: "GET", path: "/api/captures?page=two", token: h.tokenA, status: 422,
			contains: []string{`"page":["The page must be a whole number."]`}},
		{name: "EmptyPageIsFirst", method: "GET", path: "/api/captures?page=", token: h.tokenA, status: 200,
			contains: []string{`"current_page":1`}},
		{name: "ErrScope", method: "POST", path: "/api/captures", token: readOnlyToken(t, h), body: map[string]string{"text": "x"}, status: 403,
			contains: []string{`{"message":"This token lacks the captures:write scope."}`}},
		{name: "ErrNoToken", method: "GET", path: "/api/captures", status: 401},
		{name: "DeleteOwn", method: "DELETE", path: "/api/captures/" + id, token: h.tokenA, status: 204},
		{name: "GoneAfterDelete", method: "GET", path: "/api/captures/" + id, token: h.tokenA, status: 404},
	})
	if got := analyser.redetected.Load(); got != 1 {
		t.Errorf("detection re-ran %d times after the delete, want 1", got)
	}
}

func readOnlyToken(t *testing.T, h *harness) string {
	t.Helper()
	plain, err := h.store.CreateToken(context.Background(), storeToken(h.alice.ID, "captures:read"))
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

func TestCaptureList(t *testing.T) {
	h := newHarness(t)
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// Posted in a shuffled order; listed by occurred_at, newest first.
	for _, day := range []int{3, 1, 5, 2, 4} {
		res := h.do("POST", "/api/captures", h.tokenA, map[string]string{
			"text": fmt.Sprintf("day %d", day), "occurred_at": base.AddDate(0, 0, day).Format(time.RFC3339)})
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
	}
	res := h.do("GET", "/api/captures?limit=2&page=2", h.tokenA, nil)
	if res.Status != 200 {
		t.Fatalf("list: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	data := body["data"].([]any)
	var got []string
	for _, d := range data {
		c := d.(map[string]any)
		got = append(got, c["original"].(string))
		if _, ok := c["segments"]; ok {
			t.Error("list items carry segments")
		}
	}
	if want := []string{"day 3", "day 2"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("page 2 = %v, want %v", got, want)
	}
	meta := body["meta"].(map[string]any)
	for key, want := range map[string]any{"current_page": 2.0, "from": 3.0, "to": 4.0, "last_page": 3.0, "per_page": 2.0, "total": 5.0,
		"path": h.srv.URL + "/api/captures"} {
		if meta[key] != want {
			t.Errorf("meta.%s = %v, want %v", key, meta[key], want)
		}
	}
	links := body["links"].(map[string]any)
	if got, want := links["next"], h.srv.URL+"/api/captures?limit=2&page=3"; got != want {
		t.Errorf("links.next = %v, want %v", got, want)
	}
	for _, k := range []string{"first", "last", "prev", "next"} {
		if _, ok := links[k]; !ok {
			t.Errorf("links lack %s", k)
		}
	}
	if len(body) != 3 {
		t.Errorf("envelope has keys %v, want only data, links and meta", body)
	}
}
