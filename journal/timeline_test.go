package journal

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// The span defaults to the TimelineDefaultDays days up to today, and bad or
// out-of-order dates are refused under the field at fault.
func TestTimelineSpan(t *testing.T) {
	today := time.Date(2026, 5, 20, 23, 30, 0, 0, time.FixedZone("east", 10*3600))
	t.Run("Default", func(t *testing.T) {
		first, last, err := timelineSpan("", "", today)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := last.Format(time.DateOnly), today.Format(time.DateOnly); got != want {
			t.Errorf("last = %s, want today in the user's zone, %s", got, want)
		}
		if got, want := int(last.Sub(first).Hours()/24)+1, TimelineDefaultDays; got != want {
			t.Errorf("%d days, want %d", got, want)
		}
	})
	t.Run("FromYear1", func(t *testing.T) {
		first, _, err := timelineSpan("", "0001-01-10", today)
		if err != nil || first.Year() != store.MinYear || first.YearDay() != 1 {
			t.Errorf("first = %v, %v; want 0001-01-01", first, err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		maxTo := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, TimelineMaxSpan+1).Format(time.DateOnly)
		for _, tc := range []struct{ from, to, field string }{
			{"2026-13-01", "", "from"},
			{"", "yesterday", "to"},
			{"0000-12-31", "0001-01-02", "from"},
			{"", "10000-01-01", "to"},
			{"2026-03-02", "2026-03-01", "to"},
			{"2026-01-01", maxTo, "to"},
		} {
			_, _, err := timelineSpan(tc.from, tc.to, today)
			var se *store.Error
			if !errors.As(err, &se) || se.Code != store.EINVALID || se.Field != tc.field {
				t.Errorf("%q..%q: err = %v, want EINVALID under %s", tc.from, tc.to, err, tc.field)
			}
		}
	})
}

// Captures fall on their date in the user's timezone, and every date is
// there exactly once, across a daylight-saving change that skips midnight
// (Santiago, 6 September 2026: 00:00 becomes 01:00).
func TestTimelineDays(t *testing.T) {
	ctx := context.Background()
	santiago, err := time.LoadLocation("America/Santiago")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	now := func() time.Time { return time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC) }
	st := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "recur.db"), now)
	u := storetest.MustCreateUser(t, st, "days@example.com")
	other := storetest.MustCreateUser(t, st, "other@example.com")
	if err := st.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: santiago.String()}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, at := range []time.Time{
		time.Date(2026, 9, 5, 23, 30, 0, 0, santiago),
		time.Date(2026, 9, 6, 1, 15, 0, 0, santiago),
		time.Date(2026, 9, 6, 22, 0, 0, 0, santiago),
		time.Date(2026, 9, 7, 0, 5, 0, 0, santiago),
	} {
		if err := st.CreateCapture(ctx, &store.Capture{UserID: u.ID, Original: "An entry.", OccurredAt: at}); err != nil {
			t.Fatal(err)
		}
		want[at.Format(time.DateOnly)]++
	}
	if err := st.CreateCapture(ctx, &store.Capture{UserID: other.ID, Original: "Not yours.", OccurredAt: time.Date(2026, 9, 6, 12, 0, 0, 0, santiago)}); err != nil {
		t.Fatal(err)
	}

	days, err := Timeline(ctx, st, u.ID, "2026-09-04", "2026-09-08")
	if err != nil {
		t.Fatal(err)
	}
	dates := []string{"2026-09-04", "2026-09-05", "2026-09-06", "2026-09-07", "2026-09-08"}
	if len(days) != len(dates) {
		t.Fatalf("%d days, want %d", len(days), len(dates))
	}
	for i, d := range days {
		if d.Date != dates[i] {
			t.Errorf("day %d is %s, want %s", i, d.Date, dates[i])
		}
		if got := len(d.Captures); got != want[d.Date] {
			t.Errorf("%s has %d captures, want %d", d.Date, got, want[d.Date])
		}
		for j := 1; j < len(d.Captures); j++ {
			if d.Captures[j].OccurredAt.Before(d.Captures[j-1].OccurredAt) {
				t.Errorf("%s: captures not oldest first", d.Date)
			}
		}
		if d.Captures == nil || d.Patterns == nil {
			t.Errorf("%s: an empty day has nil lists", d.Date)
		}
	}
}
