package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// An entry written on each day of a week, Monday to Sunday, shows in that
// day's own cell of the month grid with the dot of its pattern, whatever
// the user's zone and however near midnight the entry was written.
func TestCalendarWeekCells(t *testing.T) {
	for _, zone := range []string{"UTC", "Pacific/Auckland", "America/Los_Angeles"} {
		t.Run(zone, func(t *testing.T) {
			loc, err := time.LoadLocation(zone)
			if err != nil {
				t.Skip("no time zone data:", err)
			}
			h := newHarness(t, nil)
			if err := h.store.PutSetting(context.Background(), h.alice.ID, &store.Setting{Key: store.SettingTimezone, Value: zone}); err != nil {
				t.Fatal(err)
			}
			// The whole week before this one, so that no day is in the future.
			today := h.store.Now().In(loc)
			monday := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, loc)
			monday = monday.AddDate(0, 0, -int(monday.Weekday()+6)%7-7)
			ids := map[string]string{} // day -> entry id
			for i := range 7 {
				day := monday.AddDate(0, 0, i)
				// Early on even days and late on odd ones: the zone, not
				// UTC, decides the day.
				at := day.Add(30 * time.Minute)
				if i%2 == 1 {
					at = day.Add(23*time.Hour + 30*time.Minute)
				}
				ids[day.Format(time.DateOnly)] = h.write(h.alice, "My boss criticised my report and I skipped lunch.", at,
					store.NewTag{Type: store.TagTrigger, Name: "criticism", NewCategory: "criticism"},
					store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
					store.NewTag{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"})
			}
			h.detect(h.alice)
			alice := h.signIn(h.alice)
			pages := map[string]string{} // month -> its page
			for day, id := range ids {
				month := day[:7]
				if _, ok := pages[month]; !ok {
					a := alice.get("/calendar?month=" + month)
					if a.status != 200 {
						t.Fatalf("month %s: status %d\n%s", month, a.status, a.body)
					}
					pages[month] = a.body
				}
				cell := calendarCell(pages[month], day)
				if cell == "" {
					t.Fatalf("month %s has no cell [data-date=%s]\n%s", month, day, pages[month])
				}
				if !strings.Contains(cell, `data-capture-id="`+id+`"`) {
					t.Errorf("%s (%s): its cell lacks its entry %s\n%s", day, weekday(day), id, cell)
				}
				if !strings.Contains(cell, `class="dot negative"`) {
					t.Errorf("%s (%s): its cell lacks the pattern's dot\n%s", day, weekday(day), cell)
				}
				if n := strings.Count(cell, "data-capture-id="); n != 1 {
					t.Errorf("%s (%s): %d entries in its cell, want 1\n%s", day, weekday(day), n, cell)
				}
			}
		})
	}
}

// calendarCell returns the month grid's cell for day, or "".
func calendarCell(body, day string) string {
	return regexp.MustCompile(`(?s)<td data-date="` + regexp.QuoteMeta(day) + `".*?</td>`).FindString(body)
}

func weekday(day string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return fmt.Sprint(err)
	}
	return d.Weekday().String()
}
