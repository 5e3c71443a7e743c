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
	if seen == nil {
		t.Fatalf("%s: not within %s", what, limit)
	}
	t.Fatalf("%s: not within %s; at the end:\n%s", what, limit, seen())
}

// Poll checks cond until it holds, for at most limit, and reports whether
// it held.
func Poll(limit time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(max(limit/200, 5*time.Millisecond))
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
}
