package server

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// DefaultMaxImportBytes bounds an upload to POST /captures/import unless
// Options says otherwise. A Day One export with photos can be far larger:
// upload its JSON alone, or run recur import on the server.
const DefaultMaxImportBytes = 64 << 20

// importPath is the route whose body may exceed MaxBodyBytes.
const importPath = "/api/captures/import"

// limitBodies bounds request bodies: uploads to the import route get their
// own, larger limit.
func limitBodies(next http.Handler, limit, importLimit int64) http.Handler {
	small := http.MaxBytesHandler(next, limit)
	large := http.MaxBytesHandler(next, importLimit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == importPath {
			large.ServeHTTP(w, r)
			return
		}
		small.ServeHTTP(w, r)
	})
}

// maxImportsAtOnce bounds the imports read at once, over all accounts; each
// account has one at a time.
const maxImportsAtOnce = 2

// importRetryAfter is what a 429 from the import route tells the client to
// wait, in seconds: most imports are read within it.
const importRetryAfter = 10

// importSlots bounds the imports being read: one per user, and a few in
// all. An import holds its slot until its captures are stored.
type importSlots struct {
	mu      sync.Mutex
	max     int
	running map[string]bool // by user id
}

func newImportSlots(max int) *importSlots {
	return &importSlots{max: max, running: map[string]bool{}}
}

// acquire takes a slot for the user, or answers 429 with Retry-After
// saying why there is none. release gives it back.
func (s *importSlots) acquire(userID string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var why string
	switch {
	case s.running[userID]:
		why = "An import of yours is still being read; wait until it is done, then send the next one."
	case len(s.running) >= s.max:
		why = fmt.Sprintf("Recur is reading %d imports already, its limit at once; try again in a few seconds.", s.max)
	default:
		s.running[userID] = true
		return func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			delete(s.running, userID)
		}, nil
	}
	return nil, &apiError{status: http.StatusTooManyRequests, Message: why,
		headers: http.Header{"Retry-After": {strconv.Itoa(importRetryAfter)}}}
}
