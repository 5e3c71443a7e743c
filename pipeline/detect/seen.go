package detect

import (
	"sync"
	"time"
)

// seenUsers bounds the users whose patterns' days a Detector keeps: a
// pattern of ten years takes 58 words.
const seenUsers = 64

// seen are the days each pattern of a user showed up on in the Detector's
// last run for them, by pattern id, in the timezone loc names.
type seen struct {
	loc       string
	origin    int
	byPattern map[string]days
	captures  map[string]int // each pattern's captures, by pattern id
	// links are the patterns' links as saved, by category id, kept for
	// the summedUsers users detected last only.
	links map[string]*summed
}

// seenDays keeps the seen of the users detected most recently.
type seenDays struct {
	mu    sync.Mutex
	users map[string]*seen
	order []string // users, least recently detected first
}

// keep holds s as the user's, or forgets the user's when s is nil.
func (k *seenDays) keep(userID string, s *seen) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.users == nil {
		k.users = map[string]*seen{}
	}
	for i, id := range k.order {
		if id == userID {
			k.order = append(k.order[:i], k.order[i+1:]...)
			break
		}
	}
	delete(k.users, userID)
	if s == nil {
		return
	}
	k.users[userID] = s
	k.order = append(k.order, userID)
	for len(k.order) > seenUsers {
		delete(k.users, k.order[0])
		k.order = k.order[1:]
	}
	if n := len(k.order) - summedUsers - 1; n >= 0 {
		k.users[k.order[n]].links = nil
	}
}

// last returns what the Detector's last run for the user saw, or nil.
func (k *seenDays) last(userID string) *seen {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.users[userID]
}

// LoopDays returns the local dates on which any of the user's patterns
// with the given ids showed up, as the Detector's last run for the user
// counted them: the days store.LoopDays reads from the saved patterns, at
// the cost of a few words a pattern instead of every situation of theirs.
// It reports false when it cannot tell (no run for the user since the
// Detector was made, a run that failed, another timezone, or an id the run
// did not save), and the caller asks the store.
func (d *Detector) LoopDays(userID string, loc *time.Location, ids ...string) (map[string]bool, bool) {
	d.seen.mu.Lock()
	s := d.seen.users[userID]
	d.seen.mu.Unlock()
	if s == nil || loc == nil || loc.String() != s.loc {
		return nil, false
	}
	var union days
	for _, id := range ids {
		own, ok := s.byPattern[id]
		if !ok {
			return nil, false
		}
		if len(own) > len(union) {
			union = append(union, make(days, len(own)-len(union))...)
		}
		for i, w := range own {
			union[i] |= w
		}
	}
	out := make(map[string]bool, union.count())
	for i, w := range union {
		for b := 0; w != 0; b, w = b+1, w>>1 {
			if w&1 != 0 {
				out[time.Unix(int64(s.origin+i*64+b)*86400, 0).UTC().Format(time.DateOnly)] = true
			}
		}
	}
	return out, true
}
