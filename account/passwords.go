package account

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// DefaultPasswordWait is how long a request waits for a free slot to check
// a password before it gets 429.
const DefaultPasswordWait = 2 * time.Second

// passwords runs the argon2id computations of sign-in (checking a password
// at sign-in or confirmation, re-hashing it, the stand-in check for an
// unknown address), at most one a slot at once. Each holds 19 MiB while it
// runs, so the slots, not the number of requests, bound the memory spent.
type passwords struct {
	slots chan struct{}
	wait  time.Duration
	// dummy is checked against when the address is unknown, so that an
	// unknown address costs what a known one does. Made at the first use,
	// not at start-up.
	dummy func() string

	running atomic.Int32 // argon2id computations under way now
	peak    atomic.Int32 // the most there ever were at once
}

func newPasswords(slots int, wait time.Duration) *passwords {
	return &passwords{
		slots: make(chan struct{}, max(slots, 1)),
		wait:  wait,
		dummy: sync.OnceValue(func() string {
			h, err := store.HashPassword("not a password anyone has")
			if err != nil {
				panic(err) // the password above is long enough
			}
			return h
		}),
	}
}

// errPasswordsBusy answers a request that found no slot within the wait.
func errPasswordsBusy(wait time.Duration) *Error {
	secs := max(int(wait.Round(time.Second)/time.Second), 1)
	return tooMany(i18n.For(i18n.Default).T("The server is busy checking other passwords. Try again in %d seconds.", secs), secs)
}

// run takes a slot, waiting at most p.wait for one, and calls f in it. It
// returns 429 with Retry-After when no slot came free in time.
func (p *passwords) run(ctx context.Context, f func()) error {
	timer := time.NewTimer(p.wait)
	defer timer.Stop()
	select {
	case p.slots <- struct{}{}:
	case <-timer.C:
		return errPasswordsBusy(p.wait)
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.slots }()
	n := p.running.Add(1)
	defer p.running.Add(-1)
	for old := p.peak.Load(); n > old && !p.peak.CompareAndSwap(old, n); old = p.peak.Load() {
	}
	f()
	return nil
}

// check verifies the user's password in a slot. A nil user (an unknown
// address) or one without a password is checked against the dummy hash, at
// the same cost, and never matches. When the
// password matches a hash made with older parameters, it is hashed again
// with the current ones, in the same slot, and stored.
func (p *passwords) check(ctx context.Context, st *store.Store, log *slog.Logger, user *store.User, password string) (bool, error) {
	var ok, current bool
	var rehash string
	err := p.run(ctx, func() {
		if user == nil || user.PasswordHash == "" {
			store.VerifyPassword(p.dummy(), password)
			return
		}
		ok, current = store.VerifyPassword(user.PasswordHash, password)
		if ok && !current {
			rehash, _ = store.HashPassword(password)
		}
	})
	if err != nil || !ok {
		return false, err
	}
	if rehash != "" {
		if err := st.SetPasswordHash(ctx, user.ID, rehash); err != nil {
			log.Warn("store the password hash with the current parameters", "user_id", user.ID, "error", err)
		}
	}
	return true, nil
}
