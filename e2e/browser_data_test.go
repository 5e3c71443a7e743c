package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/cli"
	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/store"
)

// browserSession is a browser on a running Recur, with a helper to act in it.
type browserSession struct {
	t     *testing.T
	base  string
	m     *cli.Main
	mails *linkCatcher
	ctx   context.Context
	// consoleErrors is what the browser's console said was wrong so far.
	consoleErrors func() []string
	// workers holds the DevTools session of each service worker that
	// emulate reached.
	workers map[target.ID]context.Context
}

func newBrowserSession(t *testing.T, env ...string) *browserSession {
	return browserSessionWith(t, newBrowser, env...)
}

// browserSessionWith is a browser session in a window that open opens
// (newBrowser, or newFullBrowser for what only chromium does).
func browserSessionWith(t *testing.T, open func(*testing.T) (context.Context, func() []string), env ...string) *browserSession {
	needChromium(t)
	base, m, _, mails := browserApp(t, &modelGate{}, env...)
	ctx, consoleErrors := open(t)
	return &browserSession{t: t, base: base, m: m, mails: mails, ctx: ctx, consoleErrors: consoleErrors, workers: map[target.ID]context.Context{}}
}

// Each run has a bound of its own, within the session's, so that when an
// action waits in vain the page it waited on can still be read and shown.
func (s *browserSession) run(actions ...chromedp.Action) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, runLimit)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		s.t.Fatalf("%v; at the end:\n%s", err, pageSeen(s.ctx)())
	}
}

// in is the session for the subtest t, in the same tab: it fails t, and
// its console errors are those logged from now on.
func (s *browserSession) in(t *testing.T) *browserSession {
	c := *s
	c.t = t
	before := len(s.consoleErrors())
	c.consoleErrors = func() []string { return s.consoleErrors()[before:] }
	return &c
}

// runLimit bounds one browserSession.run: far beyond what a loaded machine
// takes, and well within the session's own bound.
const runLimit = 60 * time.Second

// signIn signs in as email by a mailed link, as a new person does. The
// link is asked for as the sign-in page's form asks (TestBrowserSignIn
// fills that form in), but from the test: the browser only opens the mail's
// link, which spares each test two page loads.
func (s *browserSession) signIn(email string) *store.User {
	s.t.Helper()
	before, _ := s.mails.Counts()
	res, err := http.PostForm(s.base+"/sign-in", url.Values{"email": {email}})
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		s.t.Fatalf("asking for a sign-in link for %s: %s", email, res.Status)
	}
	s.run(chromedp.Navigate(s.mails.NextLink(s.t, before)), chromedp.WaitVisible(`form[data-testid=write]`))
	u, err := s.m.Store().FindUserByEmail(context.Background(), email)
	if err != nil {
		s.t.Fatal(err)
	}
	return u
}

// captures returns the texts of u's captures.
func (s *browserSession) captures(u *store.User) []string {
	s.t.Helper()
	list, _, err := s.m.Store().ListCaptures(context.Background(), u.ID, store.Page{Page: 1, Limit: 100})
	if err != nil {
		s.t.Fatal(err)
	}
	texts := make([]string, len(list))
	for i, c := range list {
		texts[i] = c.Original
	}
	return texts
}

// An app registered on the settings page gets a token, shown once, that
// posts entries through the API.
func TestBrowserApp(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	u := s.signIn("phone@example.com")
	s.run(chromedp.Navigate(s.base+"/settings/apps"), chromedp.WaitVisible(`#app-name`))
	screenshots(t, s.ctx, "apps-empty")
	s.run(chromedp.SendKeys(`#app-name`, "Phone shortcut"), chromedp.Click(`form[action="/settings/apps"] button[type=submit]`),
		chromedp.WaitVisible(`#token`))
	loaded(t, s.ctx)
	screenshots(t, s.ctx, "apps-token")
	if got := count(t, s.ctx, `button[data-copy]:not([hidden])`); got != 1 {
		t.Errorf("%d copy buttons shown, want 1", got)
	}
	var token string
	s.run(chromedp.Value(`#token`, &token))
	req, _ := http.NewRequest("POST", s.base+"/api/captures", strings.NewReader(`{"text":"Sent from my phone."}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/captures with the app's token = %d, want 201", res.StatusCode)
	}
	if got := s.captures(u); len(got) != 1 || got[0] != "Sent from my phone." {
		t.Errorf("captures %q, want the one the app sent", got)
	}
	waitFor(t, s.ctx, s.base+"/settings/apps", `[data-app-id]`, 1)
	screenshots(t, s.ctx, "apps-list")
}

// waitFile waits, boundedly, for a finished download into dir whose name
// ends in suffix, and returns its path.
func waitFile(t *testing.T, dir, suffix string) string {
	t.Helper()
	var names []string
	wait.Eventually(t, 10*time.Second, "a finished download ending in "+suffix, func() bool {
		// Chromium reserves the name with an empty file and writes into
		// a .crdownload beside it, which it moves over the name when done.
		names, _ = filepath.Glob(filepath.Join(dir, "*"+suffix))
		partial, _ := filepath.Glob(filepath.Join(dir, "*.crdownload"))
		if len(names) != 1 || len(partial) > 0 {
			return false
		}
		info, err := os.Stat(names[0])
		return err == nil && info.Size() > 0
	}, func() string {
		all, _ := filepath.Glob(filepath.Join(dir, "*"))
		return fmt.Sprintf("the download folder holds %q", all)
	})
	return names[0]
}

// followImport uploads files on the data page and waits, without
// reloading, until its progress bar says 100 %.
func (s *browserSession) followImport(files ...string) {
	s.t.Helper()
	s.run(chromedp.Navigate(s.base+"/settings/data"), chromedp.WaitVisible(`#file`), chromedp.SetUploadFiles(`#file`, files),
		chromedp.Click(`form[action="/settings/data/import"] button[type=submit]`), chromedp.WaitVisible(`[data-batch]`))
	stayOnPage(s.t, s.ctx)
	waitLive(s.t, s.ctx, `[data-batch][data-progress="100"] progress[value="100"]`, 1)
}

// A journal moved in is followed to 100 %, both exports download, and the
// Markdown one moves the journal into a new account.
func TestBrowserData(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	u := s.signIn("mover@example.com")
	dir := t.TempDir()
	var entries []string
	for i, day := range []string{"2026-03-01", "2026-03-02", "2026-03-03"} {
		text := fmt.Sprintf("Day %d: my boss criticised my report and I skipped lunch.", i+1)
		entries = append(entries, text)
		if err := os.WriteFile(filepath.Join(dir, day+".md"), []byte("---\ndate: "+day+" 09:00\n---\n"+text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.followImport(filepath.Join(dir, "2026-03-01.md"), filepath.Join(dir, "2026-03-02.md"), filepath.Join(dir, "2026-03-03.md"))
	screenshots(t, s.ctx, "data-imported")
	if got := s.captures(u); len(got) != 3 {
		t.Fatalf("%d captures after the import, want 3", len(got))
	}

	downloads := t.TempDir()
	s.run(browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(downloads).WithBrowserContextID(browserContext(s.ctx)))
	s.run(chromedp.Navigate(s.base+"/settings/data"), chromedp.WaitVisible(`[data-testid=export-json]`))
	press(t, s.ctx, `[data-testid=export-json]`)
	jsonFile := waitFile(t, downloads, ".json")
	press(t, s.ctx, `[data-testid=export-markdown]`)
	zipFile := waitFile(t, downloads, ".zip")
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range entries {
		if !bytes.Contains(b, []byte(text)) {
			t.Errorf("the JSON export lacks %q", text)
		}
	}
	zr, err := zip.OpenReader(zipFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(zr.File); got != 3 {
		t.Errorf("the Markdown export holds %d files, want 3", got)
	}
	zr.Close()

	press(t, s.ctx, `form[action="/sign-out"] button`)
	waitCount(t, s.ctx, `form[data-testid=link] input[name=email]`, 1)
	fresh := s.signIn("new-home@example.com")
	s.followImport(zipFile)
	got := s.captures(fresh)
	if len(got) != 3 {
		t.Fatalf("the new account has %d captures after importing the Markdown export, want 3", len(got))
	}
	for _, text := range entries {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, text)
		}
		if !found {
			t.Errorf("the new account lacks %q", text)
		}
	}
}

// offline takes the page and its service worker off the network, or back
// on, with DevTools' network emulation: both, as when a phone loses its
// connection.
func (s *browserSession) offline(on bool) {
	s.t.Helper()
	s.offlineIn(s.ctx, on)
}

// offlineIn is offline for the tab of ctx; taking it offline needs a
// service worker to take offline with it.
func (s *browserSession) offlineIn(ctx context.Context, on bool) {
	s.t.Helper()
	if workers := s.emulate(ctx, on); on && workers == 0 {
		s.t.Fatal("no service worker runs")
	}
}

// emulate sets the tab of ctx and every running service worker offline or
// back online, and says how many workers it reached: a worker idle for a
// moment may have stopped, and starts again with the connection as it is.
func (s *browserSession) emulate(ctx context.Context, on bool) int {
	s.t.Helper()
	if err := chromedp.Run(ctx, network.Enable(), network.EmulateNetworkConditions(on, 0, -1, -1)); err != nil {
		s.t.Fatal(err)
	}
	targets, err := chromedp.Targets(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	workers := 0
	for _, ti := range targets {
		// The workers of this test's browser context only: the others
		// belong to other tests sharing the browser.
		if ti.Type != "service_worker" || ti.BrowserContextID != browserContext(s.ctx) {
			continue
		}
		// Conditions belong to the DevTools session that set them: a
		// worker taken offline through one session stays offline until
		// that same session takes it back online, whatever another says.
		// So each worker keeps its one session; its context is left open,
		// as cancelling it would detach from, or close, the worker, and
		// the browser's end closes it.
		wctx, ok := s.workers[ti.TargetID]
		if !ok {
			wctx, _ = chromedp.NewContext(s.ctx, chromedp.WithTargetID(ti.TargetID)) // outlives the tab of ctx
			s.workers[ti.TargetID] = wctx
		}
		if err := chromedp.Run(wctx, network.Enable(), network.EmulateNetworkConditions(on, 0, -1, -1)); err != nil {
			s.t.Fatalf("service worker %s: %v", ti.URL, err)
		}
		workers++
	}
	return workers
}

// An entry written while the browser is offline waits on the page as
// "waiting to send" and arrives once the connection is back.
func TestBrowserOfflineWrite(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	u := s.signIn("train@example.com")
	// Let the service worker take over first, as after a first visit.
	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`form[data-testid=write]`),
		chromedp.Evaluate(`navigator.serviceWorker.ready.then(() => true)`, nil,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	s.offline(true)
	text := "Written in a tunnel, without a connection."
	s.run(chromedp.SendKeys(`textarea[name=text]`, text), chromedp.Click(`form[data-testid=write] button[type=submit]`))
	waitCount(t, s.ctx, `[data-outbox-id][data-status=waiting]`, 1)
	screenshots(t, s.ctx, "offline-waiting")
	if got := s.captures(u); len(got) != 0 {
		t.Fatalf("captures %q while offline, want none yet", got)
	}
	stayOnPage(t, s.ctx)
	s.offline(false)
	waitLive(t, s.ctx, `[data-outbox-id]`, 0)
	if got := s.captures(u); len(got) != 1 || got[0] != text {
		t.Fatalf("captures %q after going online, want the entry written offline", got)
	}
	waitFor(t, s.ctx, s.base+"/", `[data-capture-id]`, 1)
}

// An entry written offline that the server refuses (422) stays on the
// device, shown with the server's sentence, is not sent again and does not
// hold back the entries written after it; it leaves only when removed, which
// asks twice.
func TestBrowserOfflineRefused(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	u := s.signIn("refused@example.com")
	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`form[data-testid=write]`),
		chromedp.Evaluate(`navigator.serviceWorker.ready.then(() => true)`, nil,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	s.offline(true)
	// Too long for a capture: the form would not let it through, but an
	// outbox written by an older page might hold one.
	tooLong := strings.Repeat("a", store.CaptureMaxLength+1)
	s.run(chromedp.Evaluate(fmt.Sprintf(`recurOutbox.add(%q, new Date().toISOString(), document.body.dataset.user).then(() => true)`, tooLong), nil,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	text := "Written after the long one, and sent all the same."
	s.run(chromedp.SendKeys(`textarea[name=text]`, text), chromedp.Click(`form[data-testid=write] button[type=submit]`))
	waitCount(t, s.ctx, `[data-outbox-id][data-status=waiting]`, 2)
	stayOnPage(t, s.ctx)
	s.offline(false)
	waitLive(t, s.ctx, `[data-outbox-id][data-status=refused]`, 1)
	// The page and the worker both try the outbox: a send of the worker's
	// that is cut short (chromium may stop a worker on a busy machine)
	// keeps the entry for the outbox's 30-second lease before the page may
	// send it.
	waitLiveWithin(t, s.ctx, 45*time.Second, `[data-outbox-id]`, 1)
	if got := s.captures(u); len(got) != 1 || got[0] != text {
		t.Fatalf("captures %q after going online, want only the entry the server takes", got)
	}
	// Read where it stands now: the list may be drawn again meanwhile (the
	// page and the worker each try the outbox), replacing the node.
	var status string
	wait.Eventually(t, 10*time.Second, "the refused entry's sentence", func() bool {
		err := chromedp.Run(s.ctx, chromedp.Evaluate(`document.querySelector("[data-status=refused] .status")?.textContent ?? ""`, &status))
		return err == nil && status != ""
	}, pageSeen(s.ctx))
	if !strings.HasPrefix(status, "Not saved: ") || !strings.Contains(status, fmt.Sprint(store.CaptureMaxLength)) {
		t.Fatalf("the refused entry says %q; want the server's sentence about its length", status)
	}
	screenshots(t, s.ctx, "offline-refused")
	// Not sent again: a new page keeps it, and the server still has one.
	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`form[data-testid=write]`))
	waitCount(t, s.ctx, `[data-outbox-id][data-status=refused]`, 1)
	if got := s.captures(u); len(got) != 1 {
		t.Fatalf("captures %q after a new page, want the refused entry not sent again", got)
	}
	stayOnPage(t, s.ctx)
	s.run(chromedp.Click(`[data-status=refused] button`))
	waitLive(t, s.ctx, `[data-status=refused] button.danger`, 1)
	if n := s.outboxSize(); n != 1 {
		t.Fatalf("%d entries kept after one click on remove, want the refused one still kept", n)
	}
	// The list is drawn again whenever the outbox is tried (going online, or
	// the worker's background sync): the button must still ask for good.
	s.run(chromedp.Evaluate(`document.querySelector("[data-status=refused]").dataset.drawnBefore = ""; dispatchEvent(new Event("online")); true`, nil))
	waitLive(t, s.ctx, `[data-status=refused]:not([data-drawn-before]) button.danger`, 1)
	s.run(chromedp.Click(`[data-status=refused] button.danger`))
	waitLive(t, s.ctx, `[data-outbox-id]`, 0)
	if n := s.outboxSize(); n != 0 {
		t.Fatalf("%d entries kept after removing, want none", n)
	}
}

// outboxSize is how many entries the page's outbox keeps for the user.
func (s *browserSession) outboxSize() int {
	s.t.Helper()
	var n int
	s.run(chromedp.Evaluate(`recurOutbox.all(document.body.dataset.user).then((l) => l.length)`, &n,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	return n
}

// sending reports whether an entry of the page's outbox is claimed by a
// send under way, within the outbox's 30-second lease.
func (s *browserSession) sending() bool {
	var claimed bool
	err := chromedp.Run(s.ctx, chromedp.Evaluate(`recurOutbox.all(document.body.dataset.user).then((l) => l.some((e) => e.sending > 0 && Date.now() - e.sending < 30000))`, &claimed,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	return err == nil && claimed
}

// An entry written offline in a tab that is then closed is not lost: it
// arrives once the connection is back, without that tab.
func TestBrowserOfflineWriteTabClosed(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	u := s.signIn("closer@example.com")
	tab, closeTab := chromedp.NewContext(s.ctx)
	defer closeTab()
	if err := chromedp.Run(tab, chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`form[data-testid=write]`),
		chromedp.Evaluate(`navigator.serviceWorker.ready.then(() => true)`, nil,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	s.offlineIn(tab, true)
	text := "Written on a plane, and the tab closed before landing."
	if err := chromedp.Run(tab, chromedp.SendKeys(`textarea[name=text]`, text), chromedp.Click(`form[data-testid=write] button[type=submit]`)); err != nil {
		t.Fatal(err)
	}
	waitCount(t, tab, `[data-outbox-id][data-status=waiting]`, 1)
	s.emulate(tab, true) // the worker too, should it have restarted
	closeTab()
	if got := s.captures(u); len(got) != 0 {
		t.Fatalf("captures %q while offline, want none yet", got)
	}
	// Back online: the worker's background sync or the next page sends it.
	s.offline(false)
	// A send that the closing tab or a restarting worker cut short keeps
	// the entry claimed for the outbox's 30-second lease: the page is opened
	// anew every two seconds, for at most forty, but not while a send is
	// under way (the open page's, told by the worker, or the worker's own):
	// opening the page anew would cut that one short too. The first time
	// is two seconds from now, not at once: the open page starts its send
	// as the connection comes back, and a new page opened a few
	// milliseconds before that send claims the entry would cut it short.
	reopen := time.NewTicker(2 * time.Second)
	defer reopen.Stop()
	due := false
	wait.Eventually(t, 40*time.Second, "the entry written in the closed tab, sent", func() bool {
		select {
		case <-reopen.C:
			due = true
		default:
		}
		if due && !s.sending() {
			s.run(chromedp.Navigate(s.base + "/"))
			reopen.Reset(2 * time.Second)
			due = false
		}
		got := s.captures(u)
		return len(got) == 1 && got[0] == text
	}, func() string { return fmt.Sprintf("captures %q\n%s", s.captures(u), pageSeen(s.ctx)()) })
}
