package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/cli"
	"github.com/recur-journal/recur/internal/apitest"
	"github.com/recur-journal/recur/internal/smtptest"
	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// linkCatcher is an SMTP server on 127.0.0.1 that keeps the sign-in links
// and codes of the mail it receives.
type linkCatcher = smtptest.Server

// modelGate holds the fake model's answers while it is shut, so that a
// test sees entries wait and then watches them being read. A held answer
// goes ahead by itself after heldAtMost, so nothing waits forever.
type modelGate struct {
	mu   sync.Mutex
	shut chan struct{} // nil while open
}

const heldAtMost = 20 * time.Second

// hold shuts the gate.
func (g *modelGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut == nil {
		g.shut = make(chan struct{})
	}
}

// release opens the gate and lets every held answer go.
func (g *modelGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut != nil {
		close(g.shut)
		g.shut = nil
	}
}

func (g *modelGate) wait() {
	g.mu.Lock()
	shut := g.shut
	g.mu.Unlock()
	if shut != nil {
		select {
		case <-shut:
		case <-time.After(heldAtMost):
		}
	}
}

// browserApp runs recur serve, on a data folder whose database is already
// migrated (storetest.MigratedDataDir), with the fake Ollama, whose answers
// pass through gate, and the link catcher as its SMTP server, and returns
// the base URL and the running Main. env is added to the server's
// environment, after (and so over) its own.
func browserApp(t *testing.T, gate *modelGate, env ...string) (string, *cli.Main, *fakeollama.Server, *linkCatcher) {
	lex, err := scripted.Load("pipeline/testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeollama.New(t)
	fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		gate.wait()
		return fakeollama.Reply{Content: lex.Answer(req)}
	})
	lc := smtptest.Start(t)
	host, port, _ := net.SplitHostPort(lc.Addr)
	addr := apitest.FreeAddr(t)
	m := cli.NewMain()
	m.Stdout, m.Stderr = io.Discard, io.Discard
	m.Env = []string{"RECUR_STORAGE_DATA_DIR=" + storetest.MigratedDataDir(t, t.TempDir()), "RECUR_SERVER_ADDR=" + addr, "RECUR_OLLAMA_URL=" + fake.URL(),
		"RECUR_MAIL_SMTP_HOST=" + host, "RECUR_MAIL_SMTP_PORT=" + port, "RECUR_MAIL_TLS=none", "RECUR_AUTH_SIGNUP=true"}
	m.Env = append(m.Env, env...)
	if err := m.ParseFlags([]string{"serve"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gate.release(); m.Close() })
	return "http://" + addr, m, fake, lc
}

// count returns how many elements match sel.
func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	var n int
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf("document.querySelectorAll(%q).length", sel), &n)); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor reloads path, boundedly, until sel matches at least n elements:
// at most every 100 ms, as a load costs the browser much.
func waitFor(t *testing.T, ctx context.Context, url, sel string, n int) {
	t.Helper()
	wait.EventuallyEvery(t, 20*time.Second, 100*time.Millisecond, fmt.Sprintf("%s: at least %d of %s", url, n, sel), func() bool {
		if err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatal(err)
		}
		return count(t, ctx, sel) >= n
	}, pageSeen(ctx))
}

// pageLimit bounds the wait for a page to show what a test waits for: a
// load, a form's answer, a status the server's events bring. It takes well
// under a second; the bound is for a 2-core machine running the other
// browser tests beside it, where 10 seconds were sometimes not enough.
const pageLimit = 30 * time.Second

// waitCount waits, boundedly and without reloading, until sel matches n
// elements: a form sent has brought its answer.
func waitCount(t *testing.T, ctx context.Context, sel string, n int) {
	t.Helper()
	wait.Eventually(t, pageLimit, fmt.Sprintf("%d of %s", n, sel), func() bool {
		var got int
		err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`document.readyState === "complete" && document.querySelector("main") ? document.querySelectorAll(%q).length : -1`, sel), &got))
		return err == nil && got == n
	}, pageSeen(ctx))
}

// stayOnPage marks the page that is loaded now, for waitLive.
func stayOnPage(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.sameLoad = true`, nil)); err != nil {
		t.Fatal(err)
	}
}

// streamOpen waits, boundedly, until the page's stream of events is open
// (data-live): what happens before it opens reaches the page only on its
// next load. A test holding the model releases it once the stream is open.
func streamOpen(t *testing.T, ctx context.Context) {
	t.Helper()
	wait.Eventually(t, pageLimit, "the page's stream of events open", func() bool {
		var open bool
		err := chromedp.Run(ctx, chromedp.Evaluate(`"live" in document.documentElement.dataset`, &open))
		return err == nil && open
	}, pageSeen(ctx))
}

// waitLive waits, boundedly, until sel matches n elements on the page
// stayOnPage marked, and fails if the page was loaded again meanwhile: the
// change must come live, from the server's events.
func waitLive(t *testing.T, ctx context.Context, sel string, n int) {
	t.Helper()
	waitLiveWithin(t, ctx, pageLimit, sel, n)
}

// waitLiveWithin is waitLive with a bound of its own.
func waitLiveWithin(t *testing.T, ctx context.Context, limit time.Duration, sel string, n int) {
	t.Helper()
	wait.Eventually(t, limit, fmt.Sprintf("%d of %s without reloading", n, sel), func() bool {
		got := 0
		if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`window.sameLoad === true ? document.querySelectorAll(%q).length : -1`, sel), &got)); err != nil {
			t.Fatal(err)
		}
		if got == -1 {
			t.Fatalf("the page was loaded again while waiting for %s\n%s", sel, pageSeen(ctx)())
		}
		return got == n
	}, pageSeen(ctx))
}

// attr returns attribute name of the first element sel matches.
func attr(t *testing.T, ctx context.Context, sel, name string) string {
	t.Helper()
	var v string
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`(e => e ? e.getAttribute(%q) || "" : "")(document.querySelector(%q))`, name, sel), &v)); err != nil {
		t.Fatal(err)
	}
	return v
}

func location(ctx context.Context) string {
	var u string
	chromedp.Run(ctx, chromedp.Location(&u))
	return u
}

// press clicks the first element sel matches, as a person would: a
// button sends its form with its name and value, a link navigates.
func press(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	var ok bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf("(e => !!e && (e.click(), true))(document.querySelector(%q))", sel), &ok)); err != nil || !ok {
		var main string
		chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("main") ? document.querySelector("main").innerText : document.readyState`, &main))
		t.Fatalf("%s: cannot press %s: %v\n%s", location(ctx), sel, err, main)
	}
}

// screenshots saves the page at phone and desktop size into the folder
// RECUR_SCREENSHOTS names, when it is set, to be looked at.
func screenshots(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("RECUR_SCREENSHOTS")
	if dir == "" {
		return
	}
	for _, theme := range []string{"light", "dark"} {
		scheme := emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}})
		for _, size := range [][2]int64{{390, 844}, {1280, 800}} {
			var png []byte
			if err := chromedp.Run(ctx, scheme, chromedp.EmulateViewport(size[0], size[1]), chromedp.FullScreenshot(&png, 100)); err != nil {
				t.Fatal(err)
			}
			suffix := ""
			if theme == "dark" {
				suffix = "-dark"
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%dx%d%s.png", name, size[0], size[1], suffix))
			if err := os.WriteFile(path, png, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	chromedp.Run(ctx, emulation.SetEmulatedMedia(), chromedp.EmulateViewport(390, 844))
}

// A new person signs in by mailed link, writes on three days, watches the
// entries being read live, sees the pattern appear, reviews it, searches,
// edits an entry and watches it read again, deletes one, moves through the
// calendar and sees the banner when Ollama goes away, in a real browser,
// with no console errors on any page.
func TestBrowser(t *testing.T) {
	t.Parallel()
	needChromium(t)
	gate := &modelGate{}
	base, m, fake, mails := browserApp(t, gate)
	ctx, consoleErrors := newBrowser(t)
	run := func(actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatal(err)
		}
	}

	run(chromedp.Navigate(base+"/"), chromedp.SendKeys(`input[name=email]`, "new@example.com"), chromedp.Submit(`input[name=email]`),
		chromedp.WaitVisible(`#mail-note`))
	screenshots(t, ctx, "signin")
	run(chromedp.Navigate(mails.Link(t)), chromedp.WaitVisible(`form[data-testid=write]`))
	screenshots(t, ctx, "journal-empty")
	run(chromedp.Navigate(base+"/patterns"), chromedp.WaitReady(`main`))
	screenshots(t, ctx, "patterns-empty")

	// The model holds its answers until all three are written, so that
	// each entry is seen waiting and then turning processed live.
	gate.hold()
	today := m.Store().Now()
	for i, d := range []int{2, 1, 0} {
		run(chromedp.Navigate(base+"/"), chromedp.WaitVisible(`textarea[name=text]`),
			chromedp.SendKeys(`textarea[name=text]`, "My boss criticised my report. I felt anxious and skipped lunch."))
		if d > 0 {
			run(chromedp.Click(`details.when summary`), chromedp.SetValue(`input[name=date]`, today.AddDate(0, 0, -d).Format(time.DateOnly)))
		}
		if i == 2 {
			// The last one by keyboard: Ctrl+Enter saves.
			run(chromedp.KeyEvent("\r", chromedp.KeyModifiers(2)))
		} else {
			run(chromedp.Click(`form[data-testid=write] button[type=submit]`))
		}
		waitCount(t, ctx, `[data-capture-id]`, i+1)
	}
	if got := count(t, ctx, `[data-capture-id][data-status=processed]`); got != 0 {
		t.Fatalf("%d entries read while the model held its answers", got)
	}
	stayOnPage(t, ctx)
	streamOpen(t, ctx)
	gate.release()
	waitLive(t, ctx, `[data-capture-id][data-status=processed]`, 3)
	if got := count(t, ctx, `[data-capture-id] [data-status-words]`); got != 3 {
		t.Errorf("%d entries say their status, want 3", got)
	}
	// Detection ran after the third run and found the pattern: a notice
	// links to it, on the same page.
	waitLive(t, ctx, `[data-news] a[href^="/patterns/"]`, 1)
	screenshots(t, ctx, "journal")

	// Events may come out of order: the one with the latest updated_at
	// wins. Two entries get a later processing; then the first gets an
	// older queued, which must not win; the third one's event, sent last,
	// shows when the others have been handled.
	u, err := m.Store().FindUserByEmail(context.Background(), "new@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	run(chromedp.Evaluate(`[...document.querySelectorAll("li[data-capture-id]")].map(e => e.dataset.captureId)`, &listed))
	later := m.Store().Now().Add(time.Hour).UTC()
	m.Events().CaptureChanged(&store.Capture{ID: listed[0], UserID: u.ID, Status: store.StatusProcessing, UpdatedAt: later})
	m.Events().CaptureChanged(&store.Capture{ID: listed[0], UserID: u.ID, Status: store.StatusQueued, UpdatedAt: later.Add(-time.Minute)})
	m.Events().CaptureChanged(&store.Capture{ID: listed[2], UserID: u.ID, Status: store.StatusProcessing, UpdatedAt: later})
	waitLive(t, ctx, fmt.Sprintf(`[data-capture-id=%q][data-status=processing]`, listed[2]), 1)
	if got := attr(t, ctx, fmt.Sprintf(`[data-capture-id=%q]`, listed[0]), "data-status"); got != string(store.StatusProcessing) {
		t.Errorf("after processing and an older queued, the entry shows %s, want processing", got)
	}

	waitFor(t, ctx, base+"/patterns", `[data-pattern-id][data-state=open]`, 1)
	// The criticism and the skipped lunch come in the same situations: one
	// loop, shown as one card that names the other pattern.
	if cards, then := count(t, ctx, `[data-pattern-id]`), count(t, ctx, `[data-pattern-id] [data-testid=loop] a`); cards != 1 || then != 1 {
		t.Errorf("%d pattern cards naming %d others, want the loop as one card naming one", cards, then)
	}
	screenshots(t, ctx, "patterns")
	offered := count(t, ctx, `[data-pattern-id] button[name=status][value=accepted]`)
	press(t, ctx, `button[name=status][value=accepted]`)
	waitCount(t, ctx, `[data-pattern-id] button[name=status][value=accepted]`, offered-1)
	press(t, ctx, `[data-pattern-id] h3 a`)
	waitCount(t, ctx, `svg[data-testid=flows]`, 1)
	screenshots(t, ctx, "pattern")

	run(chromedp.Navigate(base+"/"), chromedp.SendKeys(`input[type=search][name=q]`, "criticised"), chromedp.Submit(`input[type=search][name=q]`),
		chromedp.WaitVisible(`mark`))
	if got := count(t, ctx, `[data-capture-id]`); got != 3 {
		t.Errorf("search found %d entries, want 3", got)
	}
	screenshots(t, ctx, "search")
	run(chromedp.Navigate(base+"/?q=holiday"), chromedp.WaitReady(`main`))
	if got := count(t, ctx, `[data-capture-id]`); got != 0 {
		t.Errorf("search for a word never written found %d entries", got)
	}

	// Edit one entry and watch it being read again, live.
	run(chromedp.Navigate(base+"/entries/"+listed[1]), chromedp.WaitVisible(`#edit textarea[name=text]`))
	gate.hold()
	run(chromedp.SetValue(`#edit textarea[name=text]`, "My friend praised my cooking. I felt proud and went for a run."),
		chromedp.Click(`#edit button[type=submit]`))
	waitCount(t, ctx, `article[data-capture-id][data-status=queued], article[data-capture-id][data-status=processing]`, 1)
	stayOnPage(t, ctx)
	streamOpen(t, ctx)
	gate.release()
	waitLive(t, ctx, `article[data-capture-id][data-status=processed]`, 1)
	waitLive(t, ctx, `article [data-news] a`, 1)
	screenshots(t, ctx, "entry-read-again")
	press(t, ctx, `article [data-news] a`)
	run(chromedp.WaitVisible(`article mark.situation`))
	loaded(t, ctx)
	var marked string
	run(chromedp.Text(`article .text.marked`, &marked))
	if !strings.Contains(marked, "praised my cooking") || strings.Contains(marked, "criticised") {
		t.Errorf("after the edit the entry reads %q, want the new text analysed", marked)
	}
	screenshots(t, ctx, "entry")

	run(chromedp.Navigate(base + "/"))
	press(t, ctx, `[data-capture-id] details.confirm summary`)
	press(t, ctx, `[data-capture-id] details.confirm button.danger`)
	waitCount(t, ctx, `[data-capture-id]`, 2)

	run(chromedp.Navigate(base+"/calendar"), chromedp.WaitVisible(fmt.Sprintf(`[data-date="%s"]`, today.Format(time.DateOnly))))
	screenshots(t, ctx, "calendar")
	press(t, ctx, `a[rel=prev]`)
	run(chromedp.WaitVisible(fmt.Sprintf(`[data-date="%s-15"]`, today.AddDate(0, -1, -today.Day()+1).Format("2006-01"))))
	run(chromedp.Navigate(base+"/calendar?year="+strconv.Itoa(today.Year())), chromedp.WaitReady(`svg.year`))
	screenshots(t, ctx, "year")
	run(chromedp.Navigate(base+"/settings"), chromedp.WaitReady(`main`))
	screenshots(t, ctx, "settings")

	fake.Down()
	waitFor(t, ctx, base+"/", `[data-testid=ollama-banner]`, 1)
	screenshots(t, ctx, "banner")

	var nodes []*cdp.Node
	run(chromedp.Nodes(`html[lang]`, &nodes, chromedp.AtLeast(0)))
	if len(nodes) != 1 {
		t.Error("the page has no lang")
	}
	for _, e := range consoleErrors() {
		t.Errorf("browser console: %s", e)
	}
}
