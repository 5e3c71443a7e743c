package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/store"
)

// setLocale sets u's app_locale, as the settings page's picker does.
func (s *browserSession) setLocale(u *store.User, tag string) {
	s.t.Helper()
	if err := s.m.Store().PutSetting(context.Background(), u.ID, &store.Setting{Key: store.SettingAppLocale, Value: tag}); err != nil {
		s.t.Fatal(err)
	}
}

// An entry kept on the device and refused when sent is explained in the
// language of the writer's pages, not the browser's (English here): the
// outbox asks the server for its refusal in that language, and an answer
// without a sentence is said by the page, its status in words. The
// worker keeps the offline page in that language too. (A subtest of
// TestBrowserGermanWriter.)
func browserOutboxRefusalSpeaksTheAppLocale(t *testing.T, s *browserSession) {
	s.openJournal()
	s.run(chromedp.Evaluate(`recurOutbox.add("Vor langer Zeit.", "1850-06-01T12:00:00.000Z", document.body.dataset.user).then(() => recurOutbox.sendAll())`, nil, awaitJS))
	// The next answer has no sentence: the page says it.
	s.run(chromedp.Evaluate(`(() => {
		const real = window.fetch;
		window.fetch = (url, init) => (init?.method === "POST" ? Promise.resolve(new Response("", { status: 413 })) : real(url, init));
		return recurOutbox.add("Zu lang.", new Date().toISOString(), document.body.dataset.user).then(() => recurOutbox.sendAll());
	})()`, nil, awaitJS))
	text := s.pageText(s.base + "/")
	de := i18n.For("de")
	for _, want := range []string{
		de.T("Not saved: %s It is kept on this device only: copy the text, write the entry again, then remove it here.", de.Sentence("The occurred_at must be after 1900.")),
		de.T("Not saved: %s It is kept on this device only: copy the text, write the entry again, then remove it here.", de.T("The server refused the entry (%d).", 413)),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the journal lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "must be after 1900") || strings.Contains(text, "The server refused") {
		t.Errorf("the journal explains a refusal in English:\n%s", text)
	}
	// The worker's copy of the offline page speaks the pages' language too.
	var cached string
	wait.Eventually(t, 10*time.Second, "the offline page kept in German", func() bool {
		s.run(chromedp.Evaluate(`caches.match("/offline").then((r) => (r ? r.text() : ""))`, &cached, awaitJS))
		return strings.Contains(cached, `<html lang="de"`)
	}, func() string { return cached })
}
