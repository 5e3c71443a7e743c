package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// BenchmarkClaim claims the next capture and puts it back, with 10 and with
// 25,000 captures queued over a few users: the two should cost the same.
func BenchmarkClaim(b *testing.B) {
	for _, queued := range []int{10, 25000} {
		b.Run(fmt.Sprint(queued), func(b *testing.B) {
			ctx := context.Background()
			s := storetest.MustOpen(b)
			var users []string
			for i := range 5 {
				users = append(users, storetest.MustCreateUser(b, s, fmt.Sprintf("u%d@example.com", i)).ID)
			}
			if err := s.SeedQueue(ctx, users, queued); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				c, err := s.ClaimCapture(ctx)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := s.RequeueCapture(ctx, c.ID, s.Now(), false); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			if n, err := s.QueueCounts(ctx); err != nil || n.Queued != queued {
				b.Fatalf("queue after the run: %+v, %v; want %d queued", n, err, queued)
			}
		})
	}
}
