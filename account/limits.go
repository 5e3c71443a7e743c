package account

import (
	"maps"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/recur-journal/recur/internal/i18n"
)

// limit is a rate: Burst requests at once, then one every Every.
type limit struct {
	Burst int
	Every time.Duration
}

// The rate limits, per route and key. The README lists them.
var limits = map[string]limit{
	"login":               {Burst: 5, Every: time.Minute},      // per address and IP
	"login-ip":            {Burst: 20, Every: 6 * time.Second}, // per IP, across addresses
	"two-factor":          {Burst: 5, Every: time.Minute},      // per session
	"magic-mail-address":  {Burst: 3, Every: 5 * time.Minute},  // per address
	"magic-mail-ip":       {Burst: 10, Every: time.Minute},     // per IP
	"magic-token-address": {Burst: 5, Every: 2 * time.Minute},  // per address
	"magic-token-ip":      {Burst: 10, Every: time.Minute},     // per IP
	"confirm":             {Burst: 5, Every: time.Minute},      // per user
	"confirmation-code":   {Burst: 3, Every: 5 * time.Minute},  // per user
	"verification-mail":   {Burst: 3, Every: 10 * time.Minute}, // per user
}

// limiter keeps a token bucket per route and key, forgetting idle ones.
type limiter struct {
	rates   map[string]limit // limits, copied so that a test may change its own
	mu      sync.Mutex
	buckets map[string]*bucket
	now     func() time.Time
	sweep   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// newLimiter returns a limiter that reads the clock now, the store's, so
// that a test's clock decides when a bucket fills again.
func newLimiter(now func() time.Time) *limiter {
	return &limiter{rates: maps.Clone(limits), buckets: map[string]*bucket{}, now: now}
}

// allow takes one request from the route's bucket for key. When the bucket
// is empty it returns a 429 error carrying Retry-After.
func (l *limiter) allow(route, key string) error {
	lim := l.rates[route]
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.sweep) > 10*time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > time.Hour {
				delete(l.buckets, k)
			}
		}
		l.sweep = now
	}
	b, ok := l.buckets[route+"\x00"+key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Every(lim.Every), lim.Burst)}
		l.buckets[route+"\x00"+key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		secs := int(math.Ceil(d.Seconds()))
		// Said in English here; the pages and the API say it in the
		// reader's language (i18n's Locale.Sentence reads it back).
		return tooMany(i18n.For(i18n.Default).T("Too many attempts. Try again in %d seconds.", secs), secs)
	}
	return nil
}
