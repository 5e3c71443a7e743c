package pipeline

import (
	"testing"
	"time"

	"github.com/robfig/cron/v3"
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
