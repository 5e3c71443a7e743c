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
