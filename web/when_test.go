package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// The write and edit forms' date pickers stop at the writer's today, by the
// server's clock in the writer's zone, and a later day is refused in plain
// words; so is a day before 1900.
func TestWriteFormDates(t *testing.T) {
	// 23:30 UTC is already the next day in Kiritimati (UTC+14). The clock
	// stands at the last such moment before the real one, since sessions
	// expire by the real clock.
	now := time.Now().UTC().Truncate(24 * time.Hour).Add(-30 * time.Minute)
	day := func(d int) string { return now.AddDate(0, 0, d).Format(time.DateOnly) }
	h := newHarnessAt(t, nil, func() time.Time { return now })
	// The zones are the test's own, whatever RECUR_TEST_TIMEZONE says:
	// alice a day ahead, bob in UTC.
	for id, zone := range map[string]string{h.alice.ID: "Pacific/Kiritimati", h.bob.ID: "UTC"} {
		if err := h.store.PutSetting(context.Background(), id, &store.Setting{Key: store.SettingTimezone, Value: zone}); err != nil {
			t.Fatal(err)
		}
	}
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)
	const future = "That date is in the future: pick today or an earlier day."

	t.Run("PickerStopsAtToday", func(t *testing.T) {
		has(t, "alice's journal", alice.get("/"), 200, `name="date" type="date" value="" min="1900-01-01" max="`+day(1)+`"`)
		has(t, "bob's journal", bob.get("/"), 200, `name="date" type="date" value="" min="1900-01-01" max="`+day(0)+`"`)
	})
	t.Run("TodayInTheWritersZone", func(t *testing.T) {
		a := alice.post("/entries", url.Values{"text": {"Breakfast by the lagoon."}, "date": {day(1)}, "time": {"08:00"}})
		if a.status != http.StatusSeeOther {
			t.Fatalf("alice writing about her today = %d, want 303\n%s", a.status, a.body)
		}
	})
	t.Run("FutureInPlainWords", func(t *testing.T) {
		for _, c := range []struct {
			who  *browser
			name string
			date string
		}{{alice, "alice", day(2)}, {bob, "bob", day(1)}, {bob, "bob", day(400)}} {
			a := c.who.post("/entries", url.Values{"text": {"Tomorrow's news."}, "date": {c.date}})
			has(t, c.name+" writing on "+c.date, a, 422, future, `aria-invalid`, `value="`+c.date+`"`)
			if strings.Contains(a.body, "occurred_at") {
				t.Errorf("%s writing on %s: the page names occurred_at", c.name, c.date)
			}
		}
	})
	t.Run("TooEarly", func(t *testing.T) {
		has(t, "1850", alice.post("/entries", url.Values{"text": {"Long ago."}, "date": {"1850-03-01"}}), 422,
			"That date is before 1900: pick a later day.")
	})
	t.Run("Edit", func(t *testing.T) {
		id := h.write(h.alice, "Moved about.", now.Add(-time.Hour))
		has(t, "entry page", alice.get("/entries/"+id), 200, `min="1900-01-01" max="`+day(1)+`"`)
		a := alice.post("/entries/"+id, url.Values{"text": {"Moved about."}, "date": {day(3)}, "time": {"09:00"}})
		has(t, "edit to a later day", a, 422, future)
		c, err := h.store.FindCapture(context.Background(), h.alice.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if !c.OccurredAt.Equal(now.Add(-time.Hour)) {
			t.Errorf("occurred_at %s after a refused edit, want it unchanged", c.OccurredAt)
		}
	})
	if list, n, _ := h.store.ListCaptures(context.Background(), h.bob.ID, store.Page{Page: 1, Limit: 5}); n != 0 {
		t.Errorf("bob has %d captures after refused writes: %v", n, list)
	}
}
