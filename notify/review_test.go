package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/notify/notifytest"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// writeAbout gives u a processed capture at when whose one segment holds a
// bad behaviour of the category and the feeling anxious.
func writeAbout(t *testing.T, s *store.Store, u *store.User, when time.Time, category string) {
	t.Helper()
	storetest.MustWriteAnalysed(t, s, u.ID, when, store.NewTag{Type: store.TagBadBehaviour, Name: category + " again", NewCategory: category},
		store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"})
}

func names(list []notify.ReviewPattern) string {
	var out []string
	for _, p := range list {
		out = append(out, p.Name)
	}
	return strings.Join(out, ", ")
}

// A week's review says what was new that week, what came back, what went
// quiet, and how the accepted patterns moved, and leads to the week before
// and after; review.ready announces it once on the chosen weekday from its
// hour, for the week just ended.
func TestWeeklyReview(t *testing.T) {
	utc := time.UTC
	clock := &setClock{now: time.Date(2026, 3, 5, 12, 0, 0, 0, utc)} // Thursday of 2026-W10
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	ctx := context.Background()
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: "UTC"}); err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return time.Date(2026, 3, d, 9, 0, 0, 0, utc) }
	for _, d := range []int{2, 3, 4} {
		writeAbout(t, s, u, day(d), "skipping meals")
		writeAbout(t, s, u, day(d), "doomscrolling")
	}
	if err := detect.NewDetector(s, nil).Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 3, 12, 12, 0, 0, 0, utc)) // Thursday of 2026-W11
	for _, d := range []int{10, 11} {
		writeAbout(t, s, u, day(d), "skipping meals")
	}
	for _, d := range []int{9, 10, 11} {
		writeAbout(t, s, u, day(d), "nail biting")
	}
	if err := detect.NewDetector(s, nil).Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	all, err := s.AllPatterns(ctx, u.ID, nil)
	if err != nil || len(all) != 3 {
		t.Fatalf("patterns %d, %v; want 3", len(all), err)
	}
	for _, p := range all {
		if p.Name == "skipping meals" {
			if _, err := s.ReviewPattern(ctx, u.ID, p.ID, store.PatternAccepted); err != nil {
				t.Fatal(err)
			}
		}
	}

	clock.Set(time.Date(2026, 3, 16, 7, 59, 0, 0, utc)) // Monday of 2026-W12
	n := notify.New(notify.Options{Store: s, Logger: quiet(), AllowPrivateTargets: true, Now: clock.Now})
	r, err := n.Review(ctx, u.ID, "2026-W11")
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string]string{
		"new": names(r.New), "came back": names(r.CameBack), "quiet": names(r.Quiet), "accepted": names(r.Accepted),
		"prev": r.Prev, "next": r.Next,
	} {
		want := map[string]string{"new": "nail biting", "came back": "skipping meals", "quiet": "doomscrolling", "accepted": "skipping meals",
			"prev": "2026-W10", "next": "2026-W12"}[what]
		if got != want {
			t.Errorf("%s: %q, want %q", what, got, want)
		}
	}
	if a := r.Accepted[0]; a.Days != 2 || a.DaysBefore != 3 {
		t.Errorf("skipping meals moved from %d days to %d, want 3 to 2", a.DaysBefore, a.Days)
	}
	if r, err := n.Review(ctx, u.ID, "2026-W12"); err != nil || r.Next != "" {
		t.Errorf("this week: next %q, %v; want none", r.Next, err)
	}
	for _, week := range []string{"2026-W13", "2026-W54", "2026-11", "2026-W00"} {
		if _, err := n.Review(ctx, u.ID, week); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("review of %s: %v, want EINVALID", week, err)
		}
	}

	rcv := notifytest.NewReceiver(t)
	rcv.SetSecret("the receiver's secret")
	hookTo(t, s, u, rcv.URL, notify.ReviewReady)
	monday := "Monday"
	if err := n.SetReviewDay(ctx, u.ID, &monday); err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		at   time.Time
		sent int
	}{
		{time.Date(2026, 3, 16, 7, 59, 0, 0, utc), 0},
		{time.Date(2026, 3, 16, 8, 0, 0, 0, utc), 1},
		{time.Date(2026, 3, 16, 20, 0, 0, 0, utc), 0},
		{time.Date(2026, 3, 17, 8, 0, 0, 0, utc), 0},
	} {
		clock.Set(step.at)
		if sent, err := n.AnnounceReviews(ctx); err != nil || sent != step.sent {
			t.Fatalf("step %d at %s: announced %d, %v; want %d", i, step.at, sent, err, step.sent)
		}
	}
	if _, err := n.Work(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.Got(); len(got) != 1 || got[0].Type != notify.ReviewReady || !got[0].Signed || got[0].Data["week"] != "2026-W11" ||
		got[0].Data["path"] != "/review/2026-W11" {
		t.Fatalf("received %+v", got)
	}
}
