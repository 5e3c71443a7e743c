package pipeline

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func TestNightlyDue(t *testing.T) {
	t.Parallel()
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// last is when the previous run happened (as recorded: a UTC time).
	for _, c := range []struct {
		name, now, zone, last string
		due                   bool
	}{
		{"NeverRan", "2026-11-22T10:00:00Z", "UTC", "", true},
		{"RanToday", "2026-11-22T23:45:00Z", "UTC", "2026-11-22T00:00:00.000000Z", false},
		{"MidnightUTC", "2026-11-23T00:00:00Z", "UTC", "2026-11-22T00:00:00.000000Z", true},
		// Kolkata is UTC+5:30: its midnight is 18:30 UTC.
		{"HalfHourZoneBefore", "2026-11-22T18:15:00Z", "Asia/Kolkata", "2026-11-21T18:30:00.000000Z", false},
		{"HalfHourZoneAt", "2026-11-22T18:30:00Z", "Asia/Kolkata", "2026-11-21T18:30:00.000000Z", true},
		// Kathmandu is UTC+5:45: its midnight is 18:15 UTC.
		{"QuarterZoneBefore", "2026-11-22T18:00:00Z", "Asia/Kathmandu", "2026-11-21T18:15:00.000000Z", false},
		{"QuarterZoneAt", "2026-11-22T18:15:00Z", "Asia/Kathmandu", "2026-11-21T18:15:00.000000Z", true},
		// The Chatham Islands are UTC+13:45 in their summer: midnight is 10:15 UTC.
		{"ChathamAt", "2026-11-22T10:15:00Z", "Pacific/Chatham", "2026-11-21T10:15:00.000000Z", true},
		// New York leaves daylight time on 1 November 2026: midnight moves from 04:00 to 05:00 UTC.
		{"DSTBefore", "2026-11-02T04:45:00Z", "America/New_York", "2026-11-01T04:00:00.000000Z", false},
		{"DSTAt", "2026-11-02T05:00:00Z", "America/New_York", "2026-11-01T04:00:00.000000Z", true},
		// Santiago skips midnight on 6 September 2026: 00:00 (-04) becomes 01:00 (-03), at 04:00 UTC.
		{"SkippedMidnightBefore", "2026-09-06T03:45:00Z", "America/Santiago", "2026-09-05T04:00:00.000000Z", false},
		{"SkippedMidnightAt", "2026-09-06T04:00:00Z", "America/Santiago", "2026-09-05T04:00:00.000000Z", true},
		{"MissedNights", "2026-11-22T12:00:00Z", "Europe/Lisbon", "2026-11-18T00:00:00.000000Z", true},
		// Moving from Tokyo to Los Angeles: Tokyo ran at its midnight of the
		// 23rd (15:00 UTC on the 22nd). A Los Angeles evening of the 22nd is
		// not due; Los Angeles' midnight of the 23rd is, though the old zone
		// ran on that date already.
		{"ZoneChangedWest", "2026-11-23T02:00:00Z", "America/Los_Angeles", "2026-11-22T15:00:00.000000Z", false},
		{"ZoneChangedWestNextMidnight", "2026-11-23T08:00:00Z", "America/Los_Angeles", "2026-11-22T15:00:00.000000Z", true},
		// Moving from Los Angeles (ran at 08:00 UTC on the 22nd) to Tokyo,
		// where the 23rd began at 15:00 UTC.
		{"ZoneChangedEast", "2026-11-22T16:00:00Z", "Asia/Tokyo", "2026-11-22T08:00:00.000000Z", true},
		{"UnknownZoneIsUTC", "2026-11-22T10:00:00Z", "Nowhere/Special", "2026-11-21T00:00:00.000000Z", true},
		// Earlier versions recorded the local date of the run.
		{"LocalDateToday", "2026-11-22T23:45:00Z", "UTC", "2026-11-22", false},
		{"LocalDateYesterday", "2026-11-22T00:00:00Z", "UTC", "2026-11-21", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := nightlyDue(utc(c.now), c.zone, c.last); got != c.due {
				t.Fatalf("nightlyDue = %v, want %v", got, c.due)
			}
		})
	}
}

// The sweep's schedule meets midnight in every zone whose offset is a
// whole number of quarter hours, within the quarter.
func TestNightlyScheduleMeetsEveryOffset(t *testing.T) {
	t.Parallel()
	sched, err := cron.ParseStandard(NightlySchedule)
	if err != nil {
		t.Fatal(err)
	}
	for _, zone := range []string{"UTC", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "Australia/Eucla"} {
		loc, _ := time.LoadLocation(zone)
		midnight := time.Date(2026, 11, 23, 0, 0, 0, 0, loc)
		next := sched.Next(midnight.Add(-time.Second).UTC())
		if !next.Equal(midnight) {
			t.Errorf("%s: sweep after local midnight at %v, want exactly %v", zone, next, midnight.UTC())
		}
	}
}

func TestNightly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC) // 05:35 in Kolkata, 00:05 in Lisbon
	s := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "n.db"), func() time.Time { return now })
	kolkata := storetest.MustCreateUser(t, s, "k@example.com")
	if err := s.PutSetting(ctx, kolkata.ID, &store.Setting{Key: "timezone", Value: "Asia/Kolkata"}); err != nil {
		t.Fatal(err)
	}
	lisbon := storetest.MustCreateUser(t, s, "l@example.com")
	if err := s.PutSetting(ctx, lisbon.ID, &store.Setting{Key: "timezone", Value: "Europe/Lisbon"}); err != nil {
		t.Fatal(err)
	}
	var ran []string
	p := New(Options{Store: s, Detector: detectorFunc(func(_ context.Context, id string) error { ran = append(ran, id); return nil })})
	if n, err := p.Nightly(ctx); err != nil || n != 2 {
		t.Fatalf("first sweep ran for %d users (%v), want both (never ran before)", n, err)
	}
	ran = nil
	if n, _ := p.Nightly(ctx); n != 0 {
		t.Fatalf("second sweep at the same time ran for %d users, want none", n)
	}
	now = time.Date(2026, 11, 22, 18, 30, 0, 0, time.UTC) // the next midnight in Kolkata; 18:30 in Lisbon
	if n, _ := p.Nightly(ctx); n != 1 || ran[0] != kolkata.ID {
		t.Fatalf("sweep at Kolkata's midnight ran for %v, want Kolkata alone", ran)
	}
	// Kolkata's user moves west to Lisbon after their run of the 23rd: Lisbon's
	// midnight of the 23rd is still met, and only once.
	if err := s.PutSetting(ctx, kolkata.ID, &store.Setting{Key: "timezone", Value: "Europe/Lisbon"}); err != nil {
		t.Fatal(err)
	}
	now = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	ran = nil
	if n, _ := p.Nightly(ctx); n != 2 {
		t.Fatalf("sweep at Lisbon's midnight of the 23rd ran for %v, want both users", ran)
	}
	now = now.Add(15 * time.Minute)
	if n, _ := p.Nightly(ctx); n != 0 {
		t.Fatalf("the next sweep ran again for %d users", n)
	}
}

type detectorFunc func(ctx context.Context, userID string) error

func (f detectorFunc) Detect(ctx context.Context, userID string) error { return f(ctx, userID) }
