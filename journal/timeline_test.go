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
	t.Parallel()
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
	t.Parallel()
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

// Year reads the user's year in pieces and gives every date of it once, in
// order, with each capture on its local date and each day's pleasantness the
// mean valence of its feelings: across the pieces' seams, at both ends of
// the year in a zone far from UTC, and on the last day a date can have.
func TestYear(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	// The clock stands at the end of time, so that every date may be written about.
	now := func() time.Time { return time.Date(store.MaxYear, 12, 31, 12, 0, 0, 0, time.UTC) }
	st := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "recur.db"), now)
	u := storetest.MustCreateUser(t, st, "year@example.com")
	other := storetest.MustCreateUser(t, st, "other@example.com")
	if err := st.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: auckland.String()}); err != nil {
		t.Fatal(err)
	}
	anxious := store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"}
	calm := store.NewTag{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"}
	write := func(user *store.User, at time.Time, tags ...store.NewTag) {
		t.Helper()
		c := &store.Capture{UserID: user.ID, Original: "An entry.", OccurredAt: at}
		if err := st.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ClaimCapture(ctx); err != nil {
			t.Fatal(err)
		}
		// Two segments, the second naming the first feeling again.
		var segments []store.AnalysedSegment
		if len(tags) > 0 {
			segments = []store.AnalysedSegment{{Start: 0, End: 3, Tags: tags}, {Start: 3, End: len(c.Original), Tags: tags[:1]}}
		}
		if err := st.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: user.ID, Translated: c.Original, Language: "en", Segments: segments}); err != nil {
			t.Fatal(err)
		}
	}
	type want struct {
		captures, feelings int
		pleasantness       float64
	}
	wants := map[string]want{}
	// 1 January, ten past midnight in Auckland: 31 December in UTC.
	write(u, time.Date(2026, 1, 1, 0, 10, 0, 0, auckland), calm, anxious)
	wants["2026-01-01"] = want{1, 3, (1 - 1 + 1) / 3.0}
	// The last day of the first piece and the first of the second.
	write(u, time.Date(2026, 4, 2, 12, 0, 0, 0, auckland), anxious)
	write(u, time.Date(2026, 4, 2, 18, 0, 0, 0, auckland), calm)
	wants["2026-04-02"] = want{2, 4, 0}
	write(u, time.Date(2026, 4, 3, 9, 0, 0, 0, auckland))
	wants["2026-04-03"] = want{1, 0, 0}
	// 31 December, late in the evening, and the first minutes of the next
	// year, which are still 2026 in UTC.
	write(u, time.Date(2026, 12, 31, 23, 50, 0, 0, auckland), anxious)
	wants["2026-12-31"] = want{1, 2, -1}
	write(u, time.Date(2027, 1, 1, 0, 5, 0, 0, auckland), calm)
	write(other, time.Date(2026, 6, 1, 12, 0, 0, 0, auckland), calm)

	days, err := Year(ctx, st, u.ID, 2026)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(days), 365; got != want {
		t.Fatalf("%d days, want %d", got, want)
	}
	for i, d := range days {
		if date := time.Date(2026, 1, 1+i, 12, 0, 0, 0, time.UTC).Format(time.DateOnly); d.Date != date {
			t.Fatalf("day %d is %s, want %s", i, d.Date, date)
		}
		w := wants[d.Date]
		if len(d.Captures) != w.captures || d.Feelings != w.feelings || d.Pleasantness != w.pleasantness {
			t.Errorf("%s: %d captures, %d feelings, pleasantness %v; want %d, %d, %v",
				d.Date, len(d.Captures), d.Feelings, d.Pleasantness, w.captures, w.feelings, w.pleasantness)
		}
	}

	t.Run("LastYear", func(t *testing.T) {
		// West of UTC, the year's end lies in year 10000 in UTC.
		honolulu, err := time.LoadLocation("Pacific/Honolulu")
		if err != nil {
			t.Skip("no time zone data:", err)
		}
		if err := st.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: honolulu.String()}); err != nil {
			t.Fatal(err)
		}
		write(u, time.Date(9999, 12, 31, 10, 0, 0, 0, honolulu), calm)
		days, err := Year(ctx, st, u.ID, store.MaxYear)
		if err != nil {
			t.Fatal(err)
		}
		last := days[len(days)-1]
		if last.Date != "9999-12-31" || len(last.Captures) != 1 || last.Feelings != 2 || last.Pleasantness != 1 {
			t.Errorf("last day = %+v, want 9999-12-31 with its capture and two calm feelings", last)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, year := range []int{0, store.MaxYear + 1} {
			_, err := Year(ctx, st, u.ID, year)
			var se *store.Error
			if !errors.As(err, &se) || se.Code != store.EINVALID || se.Field != "year" {
				t.Errorf("year %d: err = %v, want EINVALID under year", year, err)
			}
		}
	})
}
