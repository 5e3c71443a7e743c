package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A moment before 1900, the zero moment 0001-01-01 included, is refused
// with 422 under occurred_at wherever an entry's moment is given: it is
// never taken for "now".
func TestCaptureMomentTooEarly(t *testing.T) {
	h := newHarness(t)
	res := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": "Kept.", "occurred_at": h.store.Now().AddDate(0, 0, -2).Format(time.RFC3339)})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	path := "/api/captures/" + res.JSON(t)["data"].(map[string]any)["id"].(string)
	early := `"occurred_at":["The occurred_at must be after 1900."]`
	h.run([]scenario{
		{name: "CreateZero", method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "At the dawn of time.", "occurred_at": "0001-01-01T00:00:00Z"}, status: 422, contains: []string{early}},
		{name: "CreateZeroElsewhere", method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "At the dawn of time.", "occurred_at": "0001-01-01T00:00:00+00:00"}, status: 422, contains: []string{early}},
		{name: "Create1899", method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "Long ago.", "occurred_at": "1899-12-31T12:00:00Z"}, status: 422, contains: []string{early}},
		{name: "EditZero", method: "PATCH", path: path, token: h.tokenA,
			body: map[string]string{"occurred_at": "0001-01-01T00:00:00Z"}, status: 422, contains: []string{early}},
		{name: "Create1900", method: "POST", path: "/api/captures", token: h.tokenA,
			body: map[string]string{"text": "Just in time.", "occurred_at": "1900-01-01T00:00:00Z"}, status: 201,
			contains: []string{`"occurred_at":"1900-01-01T00:00:00.000000Z"`}},
	})
	if got := captureCount(t, h.store, h.alice.ID); got != 2 {
		t.Errorf("alice has %d captures, want the first and the one of 1900 only", got)
	}

	// An import refuses such an entry too, under "file".
	jrnl := `{"entries":[{"title":"Ancient.","body":"","date":"0001-01-01","time":"00:00"}]}`
	r := h.upload("/api/captures/import?filename=old.json", h.tokenA, "application/json", []byte(jrnl))
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "before 1900") {
		t.Fatalf("importing an entry of 0001-01-01 = %d %s, want 422 saying it is before 1900", r.Status, r.Body)
	}
}
