package store_test

import (
	"context"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// BenchmarkAuthenticate resolves a bearer token to its token and user, as
// every API request made with a token does.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	s := storetest.MustOpen(b)
	u := storetest.MustCreateUser(b, s, "bench@example.com")
	plain := storetest.MustCreateToken(b, s, u.ID, "captures:read")
	for b.Loop() {
		tok, got, err := s.Authenticate(ctx, plain)
		if err != nil || got.ID != u.ID || !tok.Can("captures:read") {
			b.Fatalf("Authenticate: %v, %v, %v", tok, got, err)
		}
	}
}
