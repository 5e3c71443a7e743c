package wait

import (
	"testing"
	"time"
)

func TestPollReturnsOnceTheConditionHolds(t *testing.T) {
	checks := 0
	if !Poll(time.Minute, func() bool { checks++; return checks == 3 }) {
		t.Fatal("Poll gave up on a condition that held on the third check")
	}
	if checks != 3 {
		t.Errorf("checked %d times, want 3: Poll goes on after the condition holds", checks)
	}
}

func TestPollGivesUpAfterItsBound(t *testing.T) {
	if Poll(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("Poll said a condition that never holds held")
	}
}

// A check that never holds is made again after 1, 2 and 4 ms, then every
// limit/200 (at least 5 ms): within 200 ms no more than 3 + 193/5 checks,
// and one last at the bound. (Timers never fire early, so the count can
// only be lower on a busy machine.)
func TestPollBacksOffToItsPace(t *testing.T) {
	checks := 0
	Poll(200*time.Millisecond, func() bool { checks++; return false })
	if checks > 1+3+193/5+1 {
		t.Errorf("checked %d times in 200 ms, want at most %d", checks, 1+3+193/5+1)
	}
	if checks < 2 {
		t.Errorf("checked %d times in 200 ms: Poll did not check again", checks)
	}
}

// At a fixed pace, as EventuallyEvery polls, a check is made at most once
// every interval: within 120 ms at 50 ms, at 0, 50 and 100 ms, and once
// more at the bound.
func TestFixedPaceKeepsItsInterval(t *testing.T) {
	checks := 0
	ok := poll(120*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond, func() bool { checks++; return false })
	if ok || checks > 4 {
		t.Errorf("held %v after %d checks in 120 ms at 50 ms, want no more than 4", ok, checks)
	}
}
