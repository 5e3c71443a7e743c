package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/i18n"
)

// One writer whose pages speak German, in a tab that each subtest takes
// over in turn: the subtests are the tests that each signed a writer in
// and set German for themselves (their names without TestBrowser). Each
// begins by loading its own page.
func TestBrowserGermanWriter(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	printPageOnFailure(t, s.ctx)
	s.setLocale(s.signIn("schreiberin@example.com"), "de")
	t.Run("PatternNewsSpeaksTheAppLocale", func(t *testing.T) {
		printPageOnFailure(t, s.ctx)
		browserPatternNewsSpeaksTheAppLocale(t, s.in(t))
	})
	t.Run("OutboxRefusalSpeaksTheAppLocale", func(t *testing.T) {
		printPageOnFailure(t, s.ctx)
		browserOutboxRefusalSpeaksTheAppLocale(t, s.in(t))
	})
}

// The journal's news of a pattern that showed up, which comes before the
// pattern has a name in the reader's language, is said in that language
// without the English name. (A subtest of TestBrowserGermanWriter.)
func browserPatternNewsSpeaksTheAppLocale(t *testing.T, s *browserSession) {
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
