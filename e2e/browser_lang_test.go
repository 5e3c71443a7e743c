package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// overflowing lists the labels, buttons, headings and badges whose words
// do not fit their box at the page's width: what longer words would cut.
const overflowing = `[...document.querySelectorAll("main h1, main h2, main h3, nav a, button, summary, label, .badge, .chip, th, .calhead a, .legend span, .pager a")]
	.filter((e) => e.offsetParent !== null && !e.closest(".visually-hidden") && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "auto")
	.map((e) => e.tagName.toLowerCase() + (e.className ? "." + e.className.replace(/ /g, ".") : "") + ": " + e.textContent.trim().slice(0, 40))`

// navOnOneRow says on how many lines the main nav's links lie and whether
// the current page's link is within the nav's visible width.
const navOnOneRow = `(() => {
	const nav = document.querySelector(".top nav");
	const links = [...nav.querySelectorAll("a")];
	const cur = nav.querySelector("a[aria-current=page]");
	const n = nav.getBoundingClientRect(), c = cur ? cur.getBoundingClientRect() : n;
	return { Lines: new Set(links.map((a) => Math.round(a.getBoundingClientRect().top))).size, Seen: c.left >= n.left - 1 && c.right <= n.right + 1 };
})()`

// In each language, and in the pseudo-locale (English accented and made
// longer), the journal, the patterns, a pattern, the calendar and the
// settings fit a phone: nothing scrolls sideways and no label, button or
// heading spills out of its box. The pages speak the language (its nav
// word), its calendar starts on its first day, and no script fails.
// RECUR_SCREENSHOTS=DIR keeps a phone-sized screenshot of each. (A subtest
// of TestBrowserThreeDays, whose writer u it is; the writer's language is
// set back when it ends.)
func browserLanguages(t *testing.T, s *browserSession, u *store.User) {
	was, err := s.m.Store().SettingValue(context.Background(), u.ID, store.SettingAppLocale)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.setLocale(u, was) })
	waitFor(t, s.ctx, s.base+"/patterns", `[data-pattern-id][data-state=open]`, 1)
	id := attr(t, s.ctx, `[data-pattern-id][data-state=open]`, "data-pattern-id")
	year := strconv.Itoa(s.m.Store().Now().Year())
	pages := []struct{ name, path, ready string }{
		{"journal", "/", `form[data-testid=write]`},
		{"patterns", "/patterns", `[data-pattern-id]`},
		{"pattern", "/patterns/" + id, `svg[data-testid=flows]`},
		{"calendar", "/calendar", `table.month`},
		{"year", "/calendar?year=" + year, `svg.year`},
		{"settings", "/settings", `form[data-testid=account]`},
		{"feelings", "/feelings", `main h1`},
	}
	for _, lang := range append(i18n.Languages(), i18n.Pseudo) {
		s.setLocale(u, lang)
		loc := i18n.For(lang)
		for _, p := range pages {
			s.run(chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.base+p.path), chromedp.WaitReady(p.ready))
			var nav string
			s.run(chromedp.Text(`nav[aria-label] a[href$="/calendar"]`, &nav))
			if want := loc.T("Calendar"); strings.TrimSpace(nav) != want {
				t.Errorf("%s %s: the nav says %q, want %q", lang, p.name, nav, want)
			}
			noSideways(t, s)
			var navRow struct {
				Lines int
				Seen  bool
			}
			s.run(chromedp.Evaluate(navOnOneRow, &navRow))
			if navRow.Lines != 1 || !navRow.Seen {
				t.Errorf("%s %s at 390px: the nav takes %d lines, its current link in view: %v", lang, p.name, navRow.Lines, navRow.Seen)
			}
			var cut []string
			s.run(chromedp.Evaluate(overflowing, &cut))
			for _, c := range cut {
				t.Errorf("%s %s at 390px: %s does not fit its box", lang, p.name, c)
			}
			if p.name == "pattern" {
				// The loop figure takes the room it draws in, no more.
				var spare float64
				s.run(chromedp.Evaluate(`(() => { const e = document.querySelector("svg.flows.narrow"); return e.parentElement.getBoundingClientRect().height - e.getBoundingClientRect().height })()`, &spare))
				if spare > 2 {
					t.Errorf("%s: the loop figure's box is %.0fpx taller than the figure", lang, spare)
				}
			}
			if p.name == "calendar" {
				var first string
				s.run(chromedp.AttributeValue(`table.month thead th`, "abbr", &first, nil))
				if want := loc.Weekday(loc.FirstWeekday()); first != want {
					t.Errorf("%s: the calendar's week starts on %q, want %q", lang, first, want)
				}
			}
			phoneScreenshot(t, s.ctx, fmt.Sprintf("lang-%s-%s", lang, p.name))
		}
	}
	noConsoleErrors(t, s.consoleErrors())
}

// phoneScreenshot saves the page at 390x844 into the folder
// RECUR_SCREENSHOTS names, when it is set.
func phoneScreenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("RECUR_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844), chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o600); err != nil {
		t.Fatal(err)
	}
}
