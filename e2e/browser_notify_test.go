package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/notify/notifytest"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// A person adds a webhook on the notifications settings (the owner allows
// private targets, so a receiver on this machine will do), copies its
// secret, sends a test notification that arrives signed with it, and reads
// last week's review, in a real browser with no console errors.
func TestBrowserNotifications(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t, "RECUR_NOTIFY_ALLOW_PRIVATE_TARGETS=true")
	u := s.signIn("notify@example.com")
	loc, err := s.m.Store().Location(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	now := s.m.Store().Now().In(loc)
	monday := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, loc)
	monday = monday.AddDate(0, 0, -int(monday.Weekday()+6)%7-7)
	anxious := store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"}
	for i := range 3 {
		storetest.MustWriteAnalysed(t, s.m.Store(), u.ID, monday.AddDate(0, 0, i),
			store.NewTag{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"}, anxious)
		storetest.MustWriteAnalysed(t, s.m.Store(), u.ID, monday.AddDate(0, 0, 2+i),
			store.NewTag{Type: store.TagTrigger, Name: "late train", NewCategory: "travel delays"}, anxious)
	}
	if err := detect.NewDetector(s.m.Store(), nil).Detect(context.Background(), u.ID); err != nil {
		t.Fatal(err)
	}

	rcv := notifytest.NewReceiver(t)
	s.run(chromedp.Navigate(s.base+"/settings/notifications"), chromedp.WaitVisible(`form[data-testid=new-channel]`),
		chromedp.SetValue(`#kind`, "webhook"), chromedp.SendKeys(`#url`, rcv.URL+"/hook"),
		chromedp.Click(`form[data-testid=new-channel] button[type=submit]`), chromedp.WaitVisible(`[data-testid=new-secret]`))
	loaded(t, s.ctx)
	var secret string
	s.run(chromedp.Value(`#secret`, &secret))
	rcv.SetSecret(secret)
	s.run(chromedp.Click(`[data-kind=webhook] button[name=test]`), chromedp.WaitVisible(`p.note`))
	wait.Eventually(t, 20*time.Second, "a signed test notification", func() bool {
		got := rcv.Got()
		return len(got) == 1 && got[0].Type == notify.Test && got[0].Signed
	}, rcv.Types)
	s.run(chromedp.Navigate(s.base+"/settings/notifications"), chromedp.WaitVisible(`[data-testid=last-delivery]`))
	screenshots(t, s.ctx, "settings-notifications")

	last := notify.WeekOf(monday)
	s.run(chromedp.Navigate(s.base+"/review/"+last), chromedp.WaitVisible(`[data-testid=review-new]`))
	var newList string
	s.run(chromedp.Text(`[data-testid=review-new]`, &newList))
	if want := "skipping meals"; !strings.Contains(newList, want) {
		t.Errorf("last week's new patterns: %q, want %s among them", newList, want)
	}
	screenshots(t, s.ctx, "review")
	if errs := s.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
}
