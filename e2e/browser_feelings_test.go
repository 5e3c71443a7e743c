package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/store"
)

// A person who wrote over some weeks opens the feelings page from the
// navigation: each week's feelings are drawn and tabled, the feelings found
// most listed and the accepted pattern followed, on a phone without
// sideways scrolling; an entry's Markdown shows as such, a table and a
// task list too, with nothing the page's security policy refuses.
func TestBrowserFeelingsPage(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	printPageOnFailure(t, s.ctx)
	u := s.signIn("feelings@example.com")
	texts := []string{
		"My boss criticised my report. I felt anxious and skipped lunch.",
		"Went for a run in the **park** and felt calm and proud.",
		"The train was late again; stressed and tense all morning.",
		"# Sunday\n\nCooked dinner with Sam, felt content and grateful.\n\n| dish | minutes |\n|:--|--:|\n| soup | 20 |\n\n- [x] bread",
	}
	// The weeks before today were written before this test: they are
	// stored as the write form stores them, and the last entry is written
	// in the page, which sets the model reading all of them.
	today := s.m.Store().Now()
	const days = 60
	written := 0
	for d := days; d > 0; d -= 3 {
		c := &store.Capture{UserID: u.ID, Original: texts[(d/3)%len(texts)], OccurredAt: today.AddDate(0, 0, -d)}
		if err := s.m.Store().CreateCapture(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		written++
	}
	// The button is pressed, not clicked where it was: the entries above
	// are being read meanwhile, and a pattern's news put at the top of the
	// page moves the form down.
	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`textarea[name=text]`),
		chromedp.SetValue(`textarea[name=text]`, texts[0]))
	press(t, s.ctx, `form[data-testid=write] button[type=submit]`)
	written++
	waitCount(t, s.ctx, `[data-capture-id]`, written)
	wait.Eventually(t, 60*time.Second, "every entry read", func() bool {
		list, _, err := s.m.Store().ListCaptures(context.Background(), u.ID, store.Page{Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			if c.Status != store.StatusProcessed {
				return false
			}
		}
		return len(list) == written
	}, pageSeen(s.ctx))
	// Detection runs once the entries are read, a moment after the last.
	var patterns []store.Pattern
	wait.Eventually(t, 30*time.Second, "the patterns detected", func() bool {
		var err error
		if patterns, _, err = s.m.Store().ListPatterns(context.Background(), u.ID, store.Page{Page: 1, Limit: 20}); err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(patterns, func(p store.Pattern) bool { return p.Name == "skipping meals" || p.Name == "exercise" })
	}, func() string { return fmt.Sprintf("%d patterns", len(patterns)) })
	accepted := 0
	for _, p := range patterns {
		if p.Name == "skipping meals" || p.Name == "exercise" {
			if _, err := s.m.Store().ReviewPattern(context.Background(), u.ID, p.ID, store.PatternAccepted); err != nil {
				t.Fatal(err)
			}
			accepted++
		}
	}
	if accepted == 0 {
		t.Fatalf("no pattern to accept among %d", len(patterns))
	}
	screenshots(t, s.ctx, "journal-markdown")

	press(t, s.ctx, `header nav a[href="/feelings"]`)
	waitCount(t, s.ctx, `svg[data-testid=top-feelings]`, 1)
	if got := count(t, s.ctx, `[data-trend]`); got != accepted {
		t.Errorf("%d accepted patterns followed, want %d", got, accepted)
	}
	if got := count(t, s.ctx, `table[data-testid=weeks-table] tbody tr`); got < 26 {
		t.Errorf("%d weeks in the table, want the 26 or more of six months", got)
	}
	noSideways(t, s)
	screenshots(t, s.ctx, "feelings")
	s.run(chromedp.Navigate(s.base+"/feelings?months=12"), chromedp.WaitReady(`main`))
	noSideways(t, s)
	screenshots(t, s.ctx, "feelings-year")
	var id string
	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitReady(`main`),
		chromedp.Evaluate(`document.querySelector("[data-capture-id] .md h3").closest("[data-capture-id]").dataset.captureId`, &id))
	s.run(chromedp.Navigate(s.base+"/entries/"+id), chromedp.WaitVisible(`article .text.marked h3`))
	noSideways(t, s)
	screenshots(t, s.ctx, "entry-markdown")
	noConsoleErrors(t, s.consoleErrors())
}
