package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
)

// awaitJS runs a script whose promise the page awaits.
func awaitJS(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// pageText is the text the page shows, once its script has looked at the
// outbox (where the page has a write form).
func (s *browserSession) pageText(url string) string {
	s.t.Helper()
	s.run(chromedp.Navigate(url))
	if count(s.t, s.ctx, `form[data-testid=write]`) > 0 {
		waitCount(s.t, s.ctx, `form[data-testid=write][data-outbox-checked]`, 1)
	}
	var text string
	s.run(chromedp.Evaluate(`document.body.innerText`, &text))
	return text
}

// openJournal opens the journal, waits until its script has looked at the
// outbox, and keeps the page from leaving (see stayOnPage).
func (s *browserSession) openJournal() {
	s.t.Helper()
	s.run(chromedp.Navigate(s.base + "/"))
	waitCount(s.t, s.ctx, `form[data-testid=write][data-outbox-checked]`, 1)
	stayOnPage(s.t, s.ctx)
}

// signOutAnswering signs out, answering the question about unsent entries
// with the button of value answer ("" when no question is expected).
func (s *browserSession) signOutAnswering(answer string) {
	s.t.Helper()
	s.run(chromedp.Navigate(s.base + "/"))
	waitCount(s.t, s.ctx, `form[data-testid=write][data-outbox-checked]`, 1)
	press(s.t, s.ctx, `form[action="/sign-out"] button`)
	if answer != "" {
		waitCount(s.t, s.ctx, `dialog[data-testid=unsent][open]`, 1)
		screenshots(s.t, s.ctx, "signout-unsent")
		press(s.t, s.ctx, `dialog[data-testid=unsent] button[value=`+answer+`]`)
	}
	waitCount(s.t, s.ctx, `form[data-testid=link] input[name=email]`, 1)
}

// An entry kept on the device is shown only to the person who wrote it:
// not to a visitor nobody signed in as, on the offline page or elsewhere,
// nor to another person signed in on the same browser; offline, the
// worker's copy of the offline page knows nobody either.
// Signing out with entries unsent asks whether to keep them for later or
// delete them.
func TestBrowserOutboxPerUser(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	printPageOnFailure(t, s.ctx)
	s.signIn("writer@example.com")
	s.run(chromedp.Navigate(s.base+"/"), chromedp.Evaluate(`navigator.serviceWorker.ready.then(() => true)`, nil, awaitJS))
	waitCount(t, s.ctx, `form[data-testid=write][data-outbox-checked]`, 1)
	stayOnPage(t, s.ctx)
	// Written with the page offline, about a day the server refuses: it
	// stays on the device, with the server's reason, until its writer
	// deals with it.
	s.run(network.Enable(), network.EmulateNetworkConditions(true, 0, -1, -1))
	secret := "Only the writer may read this line."
	s.run(chromedp.Evaluate(fmt.Sprintf(`recurOutbox.add(%q, "1850-06-01T12:00:00.000Z", document.body.dataset.user).then(() => true)`, secret), nil, awaitJS))
	s.run(network.EmulateNetworkConditions(false, 0, -1, -1))
	waitLive(t, s.ctx, `[data-outbox-id][data-status=refused]`, 1)

	s.signOutAnswering("keep")
	for _, path := range []string{"/offline", "/"} {
		if text := s.pageText(s.base + path); strings.Contains(text, secret) {
			t.Fatalf("a visitor nobody signed in as sees the writer's unsent entry on %s:\n%s", path, text)
		}
	}
	// Offline, the worker's copy of the offline page is shown, which knows
	// nobody, and the device has forgotten the writer.
	var cached struct {
		Page   string
		Device string
	}
	s.run(chromedp.Evaluate(`Promise.all([caches.match("/offline").then((r) => (r ? r.text() : "")), recurOutbox.deviceUser()]).then(([page, device]) => ({page, device}))`, &cached, awaitJS))
	if !strings.Contains(cached.Page, "No connection") || strings.Contains(cached.Page, "data-user") || cached.Device != "" {
		t.Fatalf("after signing out the device remembers %q and keeps this offline page, want nobody and a page of nobody's:\n%s", cached.Device, cached.Page)
	}

	s.signIn("other@example.com")
	for _, path := range []string{"/offline", "/"} {
		if text := s.pageText(s.base + path); strings.Contains(text, secret) {
			t.Fatalf("another person signed in sees the writer's unsent entry on %s:\n%s", path, text)
		}
	}
	s.signOutAnswering("") // nothing of theirs waits: no question

	s.signIn("writer@example.com")
	for _, path := range []string{"/offline", "/"} {
		if text := s.pageText(s.base + path); !strings.Contains(text, secret) {
			t.Fatalf("the writer, signed in again, does not see the entry kept for later on %s:\n%s", path, text)
		}
	}
	s.signOutAnswering("delete")
	s.signIn("writer@example.com")
	if text := s.pageText(s.base + "/"); strings.Contains(text, secret) {
		t.Fatalf("the entry is still kept after its writer chose to delete it when signing out:\n%s", text)
	}
	if n := s.outboxSize(); n != 0 {
		t.Fatalf("%d entries kept after deleting them at sign-out, want none", n)
	}
}

// An entry whose send another sender began and never finished (a worker
// the browser stopped mid-send holds it for the outbox's 30-second lease)
// is sent by the open page, without reloading, once the hold runs out.
func TestBrowserOutboxHeldEntryIsSentWhenItsHoldRunsOut(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	printPageOnFailure(t, s.ctx)
	u := s.signIn("held@example.com")
	s.openJournal()
	text := "Written offline; the worker's send of it was cut short."
	s.run(chromedp.Evaluate(fmt.Sprintf(`(async () => {
		const user = document.body.dataset.user;
		await recurOutbox.add(%q, new Date().toISOString(), user);
		const [e] = await recurOutbox.all(user);
		const db = await new Promise((resolve, reject) => { const r = indexedDB.open("recur-outbox", 2); r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
		await new Promise((resolve, reject) => {
			const tx = db.transaction("kept", "readwrite");
			tx.objectStore("kept").put({ ...e, sending: Date.now() - recurOutbox.claimFor + 3000 });
			tx.oncomplete = resolve;
			tx.onerror = () => reject(tx.error);
		});
		db.close();
		dispatchEvent(new Event("online"));
		return true;
	})()`, text), nil, awaitJS))
	// Tried at once, it is held: it waits, then goes.
	waitLive(t, s.ctx, `[data-outbox-id][data-status=waiting]`, 1)
	if got := s.captures(u); len(got) != 0 {
		t.Fatalf("captures %q while another sender held the entry, want none yet", got)
	}
	waitLiveWithin(t, s.ctx, 20*time.Second, `[data-outbox-id]`, 0)
	if got := s.captures(u); len(got) != 1 || got[0] != text {
		t.Fatalf("captures %q, want the held entry sent once its hold ran out", got)
	}
}

// An entry the page could not send, the server out of its reach, is tried
// again seconds later while the page stays open, not only once as long as
// a hold lasts (30 seconds) has gone by.
func TestBrowserOutboxFailedSendIsTriedAgainSoon(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	printPageOnFailure(t, s.ctx)
	u := s.signIn("again@example.com")
	s.openJournal()
	var mu sync.Mutex
	failed := 0 // the sends the browser blocked
	chromedp.ListenTarget(s.ctx, func(ev any) {
		if ev, ok := ev.(*network.EventLoadingFailed); ok && ev.BlockedReason != "" {
			mu.Lock()
			failed++
			mu.Unlock()
		}
	})
	s.run(network.Enable(), network.SetBlockedURLs([]string{"*/api/captures"}))
	text := "Written while the server was out of reach."
	s.run(chromedp.Evaluate(fmt.Sprintf(`(async () => {
		await recurOutbox.add(%q, new Date().toISOString(), document.body.dataset.user);
		dispatchEvent(new Event("online"));
		return true;
	})()`, text), nil, awaitJS))
	wait.Eventually(t, 10*time.Second, "the page's send, blocked", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failed > 0
	}, func() string { return "no send of the entry was blocked" })
	if got := s.captures(u); len(got) != 0 {
		t.Fatalf("captures %q while the server was out of reach, want none yet", got)
	}
	screenshots(t, s.ctx, "outbox-retrying")
	s.run(network.SetBlockedURLs([]string{}))
	// The journal, not the page's list, which is drawn anew as the page
	// tries (so that it may show no entry for a moment).
	var got []string
	wait.Eventually(t, 15*time.Second, "the entry sent again once the server was back", func() bool {
		got = s.captures(u)
		return len(got) > 0
	}, func() string { return fmt.Sprintf("captures %q", got) })
	if len(got) != 1 || got[0] != text {
		t.Fatalf("captures %q, want the entry sent again once the server was back", got)
	}
	waitLive(t, s.ctx, `[data-outbox-id]`, 0)
	noConsoleErrors(t, s.consoleErrors())
}
