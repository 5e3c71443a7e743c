// Package wait is how the tests wait: on a condition, checked until it
// holds or a bound passes, never for a stretch of time. A check that holds
// at once returns at once, and one that never holds says what it waited for
// and what was there at the end.
package wait

import (
	"testing"
	"time"
)

// Eventually checks cond until it holds, for at most limit, and otherwise
// fails t saying what it waited for and what seen shows was there at the
// end (a page, a log, a list of calls). seen may be nil.
func Eventually(t testing.TB, limit time.Duration, what string, cond func() bool, seen func() string) {
	t.Helper()
	if Poll(limit, cond) {
		return
	}
	fail(t, limit, what, seen)
}

// EventuallyEvery is Eventually checking at most once every interval, for
// a check that costs much (reloading a page).
func EventuallyEvery(t testing.TB, limit, every time.Duration, what string, cond func() bool, seen func() string) {
	t.Helper()
	if poll(limit, every, every, cond) {
		return
	}
	fail(t, limit, what, seen)
}

func fail(t testing.TB, limit time.Duration, what string, seen func() string) {
	t.Helper()
	if seen == nil {
		t.Fatalf("%s: not within %s", what, limit)
	}
	t.Fatalf("%s: not within %s; at the end:\n%s", what, limit, seen())
}

// Poll checks cond until it holds, for at most limit, and reports whether
// it held. It checks again a millisecond after the first check, then
// twice as long after each, up to a two-hundredth of limit (and at least
// 5 ms): what comes at once is seen at once, and a long wait costs no more
// than about 200 checks.
func Poll(limit time.Duration, cond func() bool) bool {
	return poll(limit, time.Millisecond, max(limit/200, 5*time.Millisecond), cond)
}

// poll checks cond until it holds, for at most limit: again first after
// first, then after twice as long each time, up to most.
func poll(limit, first, most time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	pause := time.NewTimer(first)
	defer pause.Stop()
	next := first
	for {
		if cond() {
			return true
		}
		select {
		case <-deadline.C:
			return cond()
		case <-pause.C:
		}
		next = min(2*next, most)
		pause.Reset(next)
	}
}
