package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func TestWrittenDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "u@example.com")
	other := storetest.MustCreateUser(t, s, "o@example.com")
	day := s.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -5)
	write := func(userID string, at time.Time) *store.Capture {
		c := &store.Capture{UserID: userID, Original: "A day.", OccurredAt: at}
		if err := s.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	failed := write(u.ID, day.AddDate(0, 0, 2))
	if _, err := s.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.FailCapture(ctx, failed.ID); err != nil {
		t.Fatal(err)
	}
	write(u.ID, day.Add(10*time.Hour))
	write(u.ID, day.Add(23*time.Hour+30*time.Minute))
	write(other.ID, day.AddDate(0, 0, 1))

	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		loc  *time.Location
		want int
	}{{"UTC", time.UTC, 1}, {"Berlin", berlin, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := s.WrittenDays(ctx, u.ID, tc.loc)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := n, tc.want; got != want {
				t.Errorf("written days = %d, want %d", got, want)
			}
		})
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, _, err := s.PatternDays(ctx, u.ID, "nope", time.UTC); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("PatternDays of an unknown pattern: %v, want ENOTFOUND", err)
		}
		if _, err := s.FlowCount(ctx, u.ID, "nope"); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("FlowCount of an unknown pattern: %v, want ENOTFOUND", err)
		}
		if n, err := s.FlowCount(ctx, u.ID, ""); err != nil || n != 0 {
			t.Errorf("FlowCount of all patterns = %d, %v; want 0", n, err)
		}
	})
}
