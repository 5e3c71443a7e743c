package journal

import (
	"errors"
	"sync"

	"github.com/recur-journal/recur/store"
)

// Event types.
const (
	EventCapture = "capture" // Data is a CaptureEvent
	EventPattern = "pattern" // Data is a PatternEvent
)

// Event is something that changed in a user's journal, for the pages that
// user has open.
type Event struct {
	Type   string // EventCapture or EventPattern
	UserID string
	Data   any
}

// CaptureEvent is a capture's status after a change.
type CaptureEvent struct {
	ID        string              `json:"id"`
	Status    store.CaptureStatus `json:"status"`
	UpdatedAt string              `json:"updated_at"` // UTC, six fractional digits, trailing Z
}

// PatternEvent is a pattern detection found, new or open again.
type PatternEvent struct {
	ID    string             `json:"id"`
	Name  string             `json:"name"`
	Kind  store.TagType      `json:"kind"`  // trigger, good_behaviour or bad_behaviour
	State store.PatternState `json:"state"` // open or closed
}

// SubscriberBuffer is how many events wait for a subscriber that reads
// slowly; beyond it the oldest are dropped.
const SubscriberBuffer = 64

// MaxSubscribers is how many subscriptions one user may hold at once: a
// few devices with a few pages open each.
const MaxSubscribers = 8

// ErrTooManySubscribers is what TrySubscribe returns beyond MaxSubscribers.
var ErrTooManySubscribers = errors.New("too many open event streams")

// Events is an in-process broker of journal events: the pipeline publishes,
// open pages subscribe, each to their own user's events. Publish never
// blocks: a subscriber that falls behind loses its oldest events.
type Events struct {
	mu   sync.Mutex
	subs map[string]map[chan Event]struct{} // user id -> subscriptions
}

// NewEvents returns an empty broker.
func NewEvents() *Events {
	return &Events{subs: map[string]map[chan Event]struct{}{}}
}

// Subscribe returns the user's events from now on and a function that
// ends the subscription and closes the channel. Beyond MaxSubscribers the
// subscription is refused: the channel comes closed.
func (e *Events) Subscribe(userID string) (<-chan Event, func()) {
	ch, cancel, err := e.TrySubscribe(userID)
	if err != nil {
		closed := make(chan Event)
		close(closed)
		return closed, func() {}
	}
	return ch, cancel
}

// TrySubscribe is Subscribe that says why it refused: ErrTooManySubscribers.
func (e *Events) TrySubscribe(userID string) (<-chan Event, func(), error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.subs[userID]) >= MaxSubscribers {
		return nil, nil, ErrTooManySubscribers
	}
	if e.subs[userID] == nil {
		e.subs[userID] = map[chan Event]struct{}{}
	}
	ch := make(chan Event, SubscriberBuffer)
	e.subs[userID][ch] = struct{}{}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			delete(e.subs[userID], ch)
			if len(e.subs[userID]) == 0 {
				delete(e.subs, userID)
			}
			close(ch)
		})
	}, nil
}

// Publish hands ev to each of its user's subscribers without waiting for
// any: a full subscriber loses its oldest event to make room.
func (e *Events) Publish(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.subs[ev.UserID] {
		select {
		case ch <- ev:
			continue
		default:
		}
		// Only Publish sends, under the lock: once one is taken out, there is room.
		select {
		case <-ch:
		default:
		}
		ch <- ev
	}
}

// Watching reports whether the user has a subscriber, so that work done
// only to publish can be skipped.
func (e *Events) Watching(userID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.subs[userID]) > 0
}

// CaptureChanged publishes a capture's status.
func (e *Events) CaptureChanged(c *store.Capture) {
	e.Publish(Event{Type: EventCapture, UserID: c.UserID,
		Data: CaptureEvent{ID: c.ID, Status: c.Status, UpdatedAt: store.FormatTime(c.UpdatedAt)}})
}

// PatternFound publishes a pattern that detection found.
func (e *Events) PatternFound(p *store.Pattern) {
	e.Publish(Event{Type: EventPattern, UserID: p.UserID, Data: PatternEvent{ID: p.ID, Name: p.Name, Kind: p.Kind, State: p.State()}})
}
