package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/recur-journal/recur/store"
)

// The store's codes for load and for a full disk reach the client as 429
// with Retry-After and as 507, each with the store's sentence.
func TestBuildErrorLoadAndSpace(t *testing.T) {
	busy := store.Errorf(store.ETOOMANY, "Another search of yours is still running; try again when it has answered.")
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		retryAfter string
	}{
		{"TooMany", busy, http.StatusTooManyRequests, retryAfter},
		{"DiskFull", store.ErrDiskFull, http.StatusInsufficientStorage, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := buildError(context.Background(), http.StatusInternalServerError, "", tc.err)
			if e.status != tc.status || e.Message != store.ErrorMessage(tc.err) || e.Errors != nil {
				t.Errorf("got %d %q %v, want %d with the store's sentence", e.status, e.Message, e.Errors, tc.status)
			}
			if got := e.headers.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
		})
	}
}
