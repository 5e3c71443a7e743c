package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A person writes on three days; while each entry is read it shows a
// quiet placeholder, and once read the journal, a search and the entry's
// own page show its feelings and the pattern it belongs to, inside the
// entry, on a phone without sideways scrolling.
func TestBrowserEntriesShowFindings(t *testing.T) {
	needChromium(t)
	gate := &modelGate{}
	base, m, _, mails := browserApp(t, gate)
	ctx, consoleErrors := newBrowser(t)
	s := &browserSession{t: t, base: base, m: m, mails: mails, ctx: ctx, consoleErrors: consoleErrors, workers: map[target.ID]context.Context{}}
	s.signIn("reader@example.com")
	gate.hold()
	today := s.m.Store().Now()
	for i, d := range []int{2, 1, 0} {
		s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`textarea[name=text]`),
			chromedp.SendKeys(`textarea[name=text]`, "My boss criticised my report. I felt anxious and skipped lunch."))
		if d > 0 {
			s.run(chromedp.Click(`details.when summary`), chromedp.SetValue(`input[name=date]`, today.AddDate(0, 0, -d).Format(time.DateOnly)))
		}
		s.run(chromedp.Click(`form[data-testid=write] button[type=submit]`))
		waitCount(t, s.ctx, `[data-capture-id]`, i+1)
	}
	if got := count(t, s.ctx, `[data-capture-id] .findings.reading`); got != 3 {
		t.Errorf("%d entries waiting to be read show the placeholder, want 3", got)
	}
	screenshots(t, s.ctx, "journal-reading")
	stayOnPage(t, s.ctx)
	gate.release()
	waitLive(t, s.ctx, `[data-capture-id][data-status=processed] .findings a[href^="/entries/"]`, 3)
	waitFor(t, s.ctx, s.base+"/", `[data-capture-id] [data-pattern-id]`, 3)
	if got := count(t, s.ctx, `[data-capture-id] [data-feeling=anxious].unpleasant`); got != 3 {
		t.Errorf("%d entries show anxious as unpleasant, want 3", got)
	}
	noSideways(t, s)
	screenshots(t, s.ctx, "journal-findings")
	waitFor(t, s.ctx, s.base+"/?q=lunch", `[data-capture-id] [data-feeling=anxious]`, 3)
	screenshots(t, s.ctx, "search-findings")
	press(t, s.ctx, `[data-capture-id] .meta a`)
	waitCount(t, s.ctx, `[data-capture-id][data-detail]`, 1)
	if f, p := count(t, s.ctx, `[data-capture-id][data-detail] [data-feeling=anxious]`), count(t, s.ctx, `[data-capture-id][data-detail] [data-pattern-id]`); f < 1 || p < 1 {
		t.Errorf("the entry page shows %d feelings anxious and %d patterns, want both", f, p)
	}
	noSideways(t, s)
	screenshots(t, s.ctx, "entry-findings")
	noConsoleErrors(t, s.consoleErrors())
}

// noSideways fails the test when the page, at phone width, is wider than
// the screen.
func noSideways(t *testing.T, s *browserSession) {
	t.Helper()
	var wide int
	s.run(chromedp.EmulateViewport(390, 844), chromedp.Evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`, &wide))
	if wide > 0 {
		t.Errorf("%s: the page scrolls %dpx sideways on a phone", location(s.ctx), wide)
	}
}
