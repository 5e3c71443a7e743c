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
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name, now, zone, last string
		due                   bool
		today                 string
	}{
		{"NeverRan", "2026-11-22T10:00:00Z", "UTC", "", true, "2026-11-22"},
		{"RanToday", "2026-11-22T23:45:00Z", "UTC", "2026-11-22", false, "2026-11-22"},
		{"MidnightUTC", "2026-11-23T00:00:00Z", "UTC", "2026-11-22", true, "2026-11-23"},
		// Kolkata is UTC+5:30: its midnight is 18:30 UTC.
		{"HalfHourZoneBefore", "2026-11-22T18:15:00Z", "Asia/Kolkata", "2026-11-22", false, "2026-11-22"},
		{"HalfHourZoneAt", "2026-11-22T18:30:00Z", "Asia/Kolkata", "2026-11-22", true, "2026-11-23"},
		// Kathmandu is UTC+5:45: its midnight is 18:15 UTC.
		{"QuarterZoneBefore", "2026-11-22T18:00:00Z", "Asia/Kathmandu", "2026-11-22", false, "2026-11-22"},
		{"QuarterZoneAt", "2026-11-22T18:15:00Z", "Asia/Kathmandu", "2026-11-22", true, "2026-11-23"},
		// The Chatham Islands are UTC+13:45 in their summer: midnight is 10:15 UTC.
		{"ChathamAt", "2026-11-22T10:15:00Z", "Pacific/Chatham", "2026-11-22", true, "2026-11-23"},
		// New York leaves daylight time on 1 November 2026: midnight moves from 04:00 to 05:00 UTC.
		{"DSTBefore", "2026-11-02T04:45:00Z", "America/New_York", "2026-11-01", false, "2026-11-01"},
		{"DSTAt", "2026-11-02T05:00:00Z", "America/New_York", "2026-11-01", true, "2026-11-02"},
		{"MissedNights", "2026-11-22T12:00:00Z", "Europe/Lisbon", "2026-11-18", true, "2026-11-22"},
		// Moving from Tokyo to Los Angeles: Tokyo's run on the 23rd is still
		// "today" to a Los Angeles evening of the 22nd; it is due at the next
		// Los Angeles midnight.
		{"ZoneChangedWest", "2026-11-23T02:00:00Z", "America/Los_Angeles", "2026-11-23", false, "2026-11-22"},
		{"ZoneChangedWestNextMidnight", "2026-11-24T08:00:00Z", "America/Los_Angeles", "2026-11-23", true, "2026-11-24"},
		{"ZoneChangedEast", "2026-11-22T16:00:00Z", "Asia/Tokyo", "2026-11-22", true, "2026-11-23"},
		{"UnknownZoneIsUTC", "2026-11-22T10:00:00Z", "Nowhere/Special", "2026-11-21", true, "2026-11-22"},
	} {
		t.Run(c.name, func(t *testing.T) {
			due, today := nightlyDue(utc(c.now), c.zone, c.last)
			if due != c.due || today != c.today {
				t.Fatalf("nightlyDue = %v, %s; want %v, %s", due, today, c.due, c.today)
			}
		})
	}
}

// The sweep's schedule meets midnight in every zone whose offset is a
// whole number of quarter hours, within the quarter.
func TestNightlyScheduleMeetsEveryOffset(t *testing.T) {
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
}

type detectorFunc func(ctx context.Context, userID string) error

func (f detectorFunc) Detect(ctx context.Context, userID string) error { return f(ctx, userID) }
