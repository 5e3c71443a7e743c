package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/store"
)

// A person writes on three days; while each entry is read it shows a
// quiet placeholder, and once read the journal, a search and the entry's
// own page show its feelings and the pattern it belongs to, inside the
// entry, on a phone without sideways scrolling.
func TestBrowserEntriesShowFindings(t *testing.T) {
	t.Parallel()
	needChromium(t)
	gate := &modelGate{}
	base, m, _, mails := browserApp(t, gate)
	ctx, consoleErrors := newBrowser(t)
	s := &browserSession{t: t, base: base, m: m, mails: mails, ctx: ctx, consoleErrors: consoleErrors, workers: map[target.ID]context.Context{}}
	s.signIn("reader@example.com")
	gate.hold()
	writeThreeDays(s)
	if got := count(t, s.ctx, `[data-capture-id] .findings.reading`); got != 3 {
		t.Errorf("%d entries waiting to be read show the placeholder, want 3", got)
	}
	screenshots(t, s.ctx, "journal-reading")
	stayOnPage(t, s.ctx)
	streamOpen(t, s.ctx)
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

// loopFigureUnderItsHeading checks that on a phone the loop figure follows
// its heading closely, with no empty band above or below it.
func loopFigureUnderItsHeading(t *testing.T, s *browserSession) {
	t.Helper()
	var gaps []float64
	s.run(chromedp.Evaluate(`(() => {
		const fig = document.querySelector("svg[data-testid=flows-narrow]").getBoundingClientRect();
		const box = document.querySelector("svg[data-testid=flows-narrow]").parentElement.getBoundingClientRect();
		return [fig.top - box.top, box.bottom - fig.bottom];
	})()`, &gaps))
	for i, side := range []string{"above", "below"} {
		if gaps[i] > 16 {
			t.Errorf("on a phone the loop figure has %.0fpx of empty space %s it; want at most 16", gaps[i], side)
		}
	}
}

// One writer's three days, written once, read in a tab that each subtest
// takes over in turn: the subtests are those tests that wrote the same
// three days each for themselves (their names without TestBrowser), which
// spares two sign-ins, two writings and their reading. Each begins by
// loading its own page and leaves what it changed as it found it.
func TestBrowserThreeDays(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	u := s.signIn("three-days@example.com")
	writeThreeDays(s)
	t.Run("Languages", func(t *testing.T) { browserLanguages(t, s.in(t), u) })
	t.Run("PatternsReadRight", func(t *testing.T) { browserPatternsReadRight(t, s.in(t), u) })
	t.Run("SearchFilters", func(t *testing.T) { browserSearchFilters(t, s.in(t)) })
}

// writeThreeDays writes the same troubled lunch on each of the last three
// days through the write form, in one page, which stays as each is saved.
// The text and date are set as a whole, not typed (TestBrowser types).
func writeThreeDays(s *browserSession) {
	t := s.t
	t.Helper()
	today := s.m.Store().Now()
	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`textarea[name=text]`))
	for i, d := range []int{2, 1, 0} {
		date := ""
		if d > 0 {
			date = today.AddDate(0, 0, -d).Format(time.DateOnly)
		}
		s.run(chromedp.SetValue(`textarea[name=text]`, "My boss criticised my report. I felt anxious and skipped lunch."),
			chromedp.SetValue(`input[name=date]`, date), chromedp.Click(`form[data-testid=write] button[type=submit]`))
		waitCount(t, s.ctx, `[data-capture-id]`, i+1)
	}
}

// A rejected pattern is found again on the patterns page and restored; the
// patterns, a pattern's loop, the year, the month and the settings fit a
// phone without sideways scrolling. (A subtest of TestBrowserThreeDays,
// whose writer u it is; the pattern is restored as it was.)
func browserPatternsReadRight(t *testing.T, s *browserSession, u *store.User) {
	waitFor(t, s.ctx, s.base+"/patterns", `[data-pattern-id][data-state=open]`, 1)
	noSideways(t, s)
	screenshots(t, s.ctx, "patterns-cards")
	id := attr(t, s.ctx, `[data-pattern-id][data-state=open]`, "data-pattern-id")
	s.run(chromedp.Navigate(s.base+"/patterns/"+id), chromedp.WaitReady(`svg[data-testid=flows]`))
	noSideways(t, s)
	loopFigureUnderItsHeading(t, s)
	screenshots(t, s.ctx, "pattern-loop")
	openDetails(t, s.ctx, `article[data-pattern-id] details.confirm`)
	pressAndLoad(t, s.ctx, `article[data-pattern-id] button[name=status][value=rejected]`)
	waitFor(t, s.ctx, s.base+"/patterns", fmt.Sprintf(`details.rejected [data-pattern-id=%q][data-state=rejected]`, id), 1)
	screenshots(t, s.ctx, "patterns-rejected")
	openDetails(t, s.ctx, `details.rejected`)
	pressAndLoad(t, s.ctx, fmt.Sprintf(`[data-pattern-id=%q] button[name=status][value=detected]`, id))
	if got := count(t, s.ctx, fmt.Sprintf(`details.rejected [data-pattern-id=%q]`, id)); got != 0 {
		t.Errorf("the restored pattern is still among the rejected")
	}
	p, err := s.m.Store().FindPattern(context.Background(), u.ID, id)
	if err != nil || p.Status != "detected" {
		t.Errorf("restored pattern %+v, %v; want detected", p, err)
	}
	today := s.m.Store().Now()
	for name, path := range map[string]string{"year": "/calendar?year=" + strconv.Itoa(today.Year()), "month": "/calendar", "settings": "/settings"} {
		s.run(chromedp.Navigate(s.base+path), chromedp.WaitReady(`main`))
		noSideways(t, s)
		screenshots(t, s.ctx, name+"-fits")
	}
	noConsoleErrors(t, s.consoleErrors())
}
