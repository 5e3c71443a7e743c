package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A person narrows the journal: an entry's feeling leads to the entries
// that share it, the filters show what is chosen and drop it again, the
// form picks a pattern, and a word form finds the entries; all on a phone
// without sideways scrolling. (A subtest of TestBrowserThreeDays, which
// only reads.)
func browserSearchFilters(t *testing.T, s *browserSession) {
	waitFor(t, s.ctx, s.base+"/", `[data-capture-id] [data-pattern-id]`, 3)
	pressAndLoad(t, s.ctx, `[data-capture-id] a[data-feeling=anxious]`)
	if got := location(s.ctx); !strings.Contains(got, "feeling=anxious") {
		t.Fatalf("the feeling's chip led to %s, want the entries with anxious", got)
	}
	waitCount(t, s.ctx, `[data-capture-id]`, 3)
	waitCount(t, s.ctx, `.active-filters a[data-remove-filter]`, 1)
	noSideways(t, s)
	screenshots(t, s.ctx, "journal-filtered")

	pressAndLoad(t, s.ctx, `.active-filters a[data-remove-filter]`)
	waitCount(t, s.ctx, `.active-filters a[data-remove-filter]`, 0)
	id := attr(t, s.ctx, `[data-capture-id] [data-pattern-id]`, "data-pattern-id")
	openDetails(t, s.ctx, `details.filters`)
	s.run(chromedp.SetValue(`select[name=pattern]`, id), chromedp.SetValue(`input[name=q]`, "skipping"))
	noSideways(t, s)
	screenshots(t, s.ctx, "journal-filter-form")
	pressAndLoad(t, s.ctx, `details.filters button[type=submit]`)
	waitCount(t, s.ctx, `[data-capture-id] mark`, 3)
	waitCount(t, s.ctx, `.active-filters a[data-remove-filter]`, 1)
	noSideways(t, s)
	screenshots(t, s.ctx, "search-filtered")
	noConsoleErrors(t, s.consoleErrors())
}
