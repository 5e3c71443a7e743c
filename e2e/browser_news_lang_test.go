package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/i18n"
)

// The journal's news of a pattern that showed up, which comes before the
// pattern has a name in the reader's language, is said in that language
// without the English name.
func TestBrowserPatternNewsSpeaksTheAppLocale(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	printPageOnFailure(t, s.ctx)
	s.setLocale(s.signIn("nachrichten@example.com"), "de")
	writeThreeDays(s)
	stayOnPage(t, s.ctx) // the third entry was sent live: the news comes to this page
	waitLive(t, s.ctx, `main > p[data-news] a[href*="/patterns/"]`, 1)
	var news string
	s.run(chromedp.Text(`main > p[data-news]`, &news))
	de := i18n.For("de")
	if want := de.T("A pattern showed up.") + " " + de.T("See it"); strings.TrimSpace(news) != want {
		t.Errorf("the news says %q, want %q", news, want)
	}
}
