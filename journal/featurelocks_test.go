package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// The patterns lock opens at detect.MinDays days of writing and says how
// many more days it needs until then.
func TestFeatureLockPatternsRule(t *testing.T) {
	t.Parallel()
	for written := 0; written <= detect.MinDays+2; written++ {
		t.Run(fmt.Sprint(written), func(t *testing.T) {
			var l FeatureLock
			l.patterns(written)
			if got, want := l.Locked, written < detect.MinDays; got != want {
				t.Errorf("locked = %v, want %v", got, want)
			}
			if got, want := l.Current, min(written, detect.MinDays); got != want {
				t.Errorf("current = %d, want %d", got, want)
			}
			if l.Required != detect.MinDays {
				t.Errorf("required = %d, want %d", l.Required, detect.MinDays)
			}
			want := "Open: "
			if written < detect.MinDays {
				want = fmt.Sprintf("so write on %d more.", detect.MinDays-written)
			}
			if !strings.Contains(l.Reason, want) {
				t.Errorf("reason %q lacks %q", l.Reason, want)
			}
		})
	}
}

// A pattern's correlations need detect.MinSideDays days with it and as many
// without: progress counts each side up to that, and the reason names only
// the side still short, in the right number.
func TestFeatureLockPatternCorrelationsRule(t *testing.T) {
	t.Parallel()
	side := detect.MinSideDays
	for _, tc := range []struct{ with, without int }{{0, 0}, {1, side}, {side, side - 1}, {side - 1, side - 1}, {side, side}, {side + 4, side + 9}} {
		t.Run(fmt.Sprintf("%d/%d", tc.with, tc.without), func(t *testing.T) {
			var l FeatureLock
			l.patternCorrelations(tc.with, tc.without)
			current := min(tc.with, side) + min(tc.without, side)
			if l.Current != current || l.Required != 2*side || l.Locked != (current < 2*side) {
				t.Errorf("got %d/%d locked %v, want %d/%d locked %v", l.Current, l.Required, l.Locked, current, 2*side, current < 2*side)
			}
			if !l.Locked {
				if !strings.HasPrefix(l.Reason, "Open: ") {
					t.Errorf("reason %q of an open lock", l.Reason)
				}
				return
			}
			short := map[string]int{"when it happens": side - tc.with, "when it does not": side - tc.without}
			for what, n := range short {
				phrase := fmt.Sprintf("%d more %s %s", n, days(n), what)
				if got, want := strings.Contains(l.Reason, phrase), n > 0; got != want {
					t.Errorf("reason %q names %q: %v, want %v", l.Reason, phrase, got, want)
				}
			}
			if strings.Contains(l.Reason, " 1 more days") {
				t.Errorf("reason %q says 1 more days", l.Reason)
			}
		})
	}
}

// Without a scope, correlations wait for enough days for both sides.
func TestFeatureLockCorrelationsRule(t *testing.T) {
	t.Parallel()
	need := 2 * detect.MinSideDays
	for _, written := range []int{0, need - 1, need, need + 5} {
		var l FeatureLock
		l.correlations(written)
		if l.Locked != (written < need) || l.Current != min(written, need) || l.Required != need {
			t.Errorf("%d days: got %+v", written, l)
		}
		if written < need && !strings.Contains(l.Reason, fmt.Sprintf("write on %d more", need-written)) {
			t.Errorf("%d days: reason %q", written, l.Reason)
		}
	}
}

// The flows lock opens with one flow, and its reason speaks of one pattern
// when scoped and of all of them otherwise.
func TestFeatureLockFlowsRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n      int
		scoped bool
		says   string
	}{
		{0, false, "none of your patterns"},
		{0, true, "no passage about this pattern"},
		{1, true, "this pattern has 1 flow."},
		{2, false, "your patterns have 2 flows."},
	} {
		var l FeatureLock
		l.flows(tc.n, tc.scoped)
		if l.Locked != (tc.n < FlowsRequired) || l.Current != min(tc.n, FlowsRequired) || l.Required != FlowsRequired {
			t.Errorf("%d flows: got %+v", tc.n, l)
		}
		if !strings.Contains(l.Reason, tc.says) {
			t.Errorf("%d flows, scoped %v: reason %q lacks %q", tc.n, tc.scoped, l.Reason, tc.says)
		}
	}
}

// FindFeatureLock counts days in the user's timezone, and refuses bad input
// with the field at fault.
func TestFindFeatureLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, st, "lock@example.com")
	if err := st.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: "America/New_York"}); err != nil {
		t.Fatal(err)
	}
	// Two entries an hour apart in UTC that fall on two dates in New York.
	base := time.Date(2025, 3, 10, 3, 30, 0, 0, time.UTC)
	for _, at := range []time.Time{base, base.Add(2 * time.Hour)} {
		if err := st.CreateCapture(ctx, &store.Capture{UserID: u.ID, Original: "A day.", OccurredAt: at}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("OK", func(t *testing.T) {
		l, err := FindFeatureLock(ctx, st, u.ID, LockPatterns, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := l.Current, min(2, detect.MinDays); got != want || !l.Locked {
			t.Errorf("current = %d (locked %v), want %d and locked", got, l.Locked, want)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, tc := range []struct{ typ, scope, field string }{
			{LockPatterns, "0190a0b0-0000-7000-8000-000000000000", "scope"},
			{"moods", "", "type"},
		} {
			_, err := FindFeatureLock(ctx, st, u.ID, tc.typ, tc.scope)
			var se *store.Error
			if !errors.As(err, &se) || se.Code != store.EINVALID || se.Field != tc.field || se.Message == "" {
				t.Errorf("%s %q: err = %v, want EINVALID under %s", tc.typ, tc.scope, err, tc.field)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, typ := range []string{LockCorrelations, LockFlows} {
			_, err := FindFeatureLock(ctx, st, u.ID, typ, "0190a0b0-0000-7000-8000-000000000000")
			if store.ErrorCode(err) != store.ENOTFOUND {
				t.Errorf("%s: err = %v, want ENOTFOUND", typ, err)
			}
		}
	})
}
