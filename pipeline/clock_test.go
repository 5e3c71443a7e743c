package pipeline_test

import (
	"context"
	"sync"
	"time"

	"github.com/recur-journal/recur/pipeline"
)

// handClock is a pipeline.Clock that moves only when the test moves it. It
// knows how many goroutines sleep on it, so that a test can wait until
// every worker waits for it before moving it on.
type handClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers map[chan struct{}]time.Time // each woken once the clock reaches its time
}

var _ pipeline.Clock = (*handClock)(nil)

func newHandClock(now time.Time) *handClock {
	return &handClock{now: now, sleepers: map[chan struct{}]time.Time{}}
}

func (c *handClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *handClock) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	c.mu.Lock()
	if d <= 0 {
		c.mu.Unlock()
		return nil
	}
	ring := make(chan struct{})
	c.sleepers[ring] = c.now.Add(d)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.sleepers, ring)
		c.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
	case <-ring:
	}
	return nil
}

// Advance moves the clock on by d and wakes those whose sleep it ends.
func (c *handClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for ring, at := range c.sleepers {
		if !at.After(c.now) {
			close(ring)
			delete(c.sleepers, ring)
		}
	}
}

// Sleeping is how many goroutines sleep on the clock now.
func (c *handClock) Sleeping() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}
