package web_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
)

// The notifications settings add a mail channel and list it, send it a
// test notification (which the delivery log then holds), refuse an ntfy
// topic on loopback with the reason, save the reminder and the review's
// weekday, refuse a time that is not one, and keep another person's
// channel out of reach.
func TestNotificationSettings(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)
	if a := alice.get("/settings/notifications"); a.status != 200 || !strings.Contains(a.body, "No channels yet.") {
		t.Fatalf("the page: %d\n%s", a.status, a.body)
	}
	a := alice.post("/settings/notifications", url.Values{"kind": {"ntfy"}, "url": {"http://127.0.0.1:2586/recur"}, "events": {"pattern.detected"}})
	if a.status != 422 || !strings.Contains(a.body, "allow_private_targets") || !strings.Contains(a.body, `value="http://127.0.0.1:2586/recur"`) {
		t.Fatalf("a loopback topic: %d\n%s", a.status, a.body)
	}
	if a := alice.post("/settings/notifications", url.Values{"kind": {"mail"}, "events": {"pattern.urgent", "reminder"}}); a.status != 303 {
		t.Fatalf("add mail: %d\n%s", a.status, a.body)
	}
	page := alice.get("/settings/notifications").body
	m := regexp.MustCompile(`data-channel-id="([^"]+)" data-kind="mail"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "alice@example.com") {
		t.Fatalf("the mail channel is not listed:\n%s", page)
	}
	id := m[1]
	if a := alice.post("/settings/notifications/"+id+"/test", nil); a.status != 303 {
		t.Fatalf("test: %d\n%s", a.status, a.body)
	}
	list, _, err := h.store.ListDeliveries(context.Background(), h.alice.ID, []string{store.ChannelMail}, id, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 1 || list[0].EventType != "test" {
		t.Fatalf("deliveries after the test: %+v, %v", list, err)
	}
	if !strings.Contains(alice.get("/settings/notifications").body, `data-testid="last-delivery">Last: pending`) {
		t.Error("the list does not show the test's delivery")
	}
	for _, path := range []string{"/settings/notifications/" + id + "/test", "/settings/notifications/" + id + "/delete"} {
		if a := bob.post(path, nil); a.status != 404 {
			t.Errorf("bob posts %s: %d, want 404", path, a.status)
		}
	}
	if a := alice.post("/settings/notifications/schedule", url.Values{"daily_at": {"21:15"}, "weekday": {"sunday"}}); a.status != 303 {
		t.Fatalf("schedule: %d\n%s", a.status, a.body)
	}
	page = alice.get("/settings/notifications").body
	if !strings.Contains(page, `value="21:15"`) || !strings.Contains(page, `<option value="sunday" selected>`) {
		t.Errorf("the saved schedule is not shown:\n%s", page)
	}
	if a := alice.post("/settings/notifications/schedule", url.Values{"daily_at": {"9pm"}}); a.status != 422 || !strings.Contains(a.body, "HH:MM") {
		t.Errorf("a reminder at 9pm: %d\n%s", a.status, a.body)
	}
	if a := alice.post("/settings/notifications/"+id+"/delete", nil); a.status != 303 || !strings.Contains(alice.get("/settings/notifications").body, "No channels yet.") {
		t.Errorf("delete: %d", a.status)
	}
}
