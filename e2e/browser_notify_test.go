package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/notify/notifytest"
	"github.com/recur-journal/recur/store"
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
	// Last week's entries are stored as the write form stores them, and
	// the server reads them (the scripted model knows these sentences) and
	// finds their patterns, as it does for any entry.
	lunch, train := "My boss criticised my report. I felt anxious and skipped lunch.", "The train was late again; stressed and tense all morning."
	for i := range 3 {
		for _, c := range []*store.Capture{
			{UserID: u.ID, Original: lunch, OccurredAt: monday.AddDate(0, 0, i)},
			{UserID: u.ID, Original: train, OccurredAt: monday.AddDate(0, 0, 2+i)},
		} {
			if err := s.m.Store().CreateCapture(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
	}
	var names []string
	wait.Eventually(t, 60*time.Second, "last week's patterns found", func() bool {
		patterns, _, err := s.m.Store().ListPatterns(context.Background(), u.ID, store.Page{Page: 1, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, p := range patterns {
			names = append(names, p.Name)
		}
		return slices.Contains(names, "skipping meals")
	}, func() string { return fmt.Sprintf("patterns %q", names) })

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
