package storetest

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// NowVar names the variable that sets where the tests' clock starts, in
// RFC 3339 (2026-11-23T23:50:00+13:00); unset, it starts at the real time.
// TimezoneVar names the variable that gives the users of the web and API
// tests' harnesses a timezone (an IANA name) instead of the default UTC
// (see InTestZone). Together they run the suite on any day and hour, in any
// user's zone.
const (
	NowVar      = "RECUR_TEST_NOW"
	TimezoneVar = "RECUR_TEST_TIMEZONE"
)

// Clock is the time a test's store and server run by. It starts where
// RECUR_TEST_NOW says, or at the real time, and runs on from there as real
// time does; Advance moves it further. A failing test logs where it started,
// so that the run can be had again.
type Clock struct {
	start  time.Time // the reading when the clock was made
	began  time.Time // the real time then
	offset atomic.Int64
}

// NewClock returns a clock for tb that starts where RECUR_TEST_NOW says.
func NewClock(tb testing.TB) *Clock {
	tb.Helper()
	now := time.Now()
	c := &Clock{start: now, began: now}
	if v := os.Getenv(NowVar); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			tb.Fatalf("%s=%q: %v (want RFC 3339, such as 2026-11-23T23:50:00+13:00)", NowVar, v, err)
		}
		c.start = t
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("the test's clock started at %s: %s=%s runs it from there again", c.start.Format(time.RFC3339), NowVar, c.start.Format(time.RFC3339))
		}
	})
	return c
}

// Now reads the clock.
func (c *Clock) Now() time.Time {
	return c.start.Add(time.Since(c.began) + time.Duration(c.offset.Load()))
}

// Advance moves the clock forward by d, as time would.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// Location is the timezone InTestZone gives users: RECUR_TEST_TIMEZONE, or
// UTC.
func Location(tb testing.TB) *time.Location {
	tb.Helper()
	name := os.Getenv(TimezoneVar)
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatalf("%s=%q: %v", TimezoneVar, name, err)
	}
	return loc
}

// InTestZone gives u the zone RECUR_TEST_TIMEZONE names, when it is set.
func InTestZone(tb testing.TB, s *store.Store, u *store.User) {
	tb.Helper()
	name := os.Getenv(TimezoneVar)
	if name == "" {
		return
	}
	if err := s.PutSetting(context.Background(), u.ID, &store.Setting{Key: store.SettingTimezone, Value: name}); err != nil {
		tb.Fatalf("%s=%q: %v", TimezoneVar, name, err)
	}
}
