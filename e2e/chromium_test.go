package e2e

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
)

// The browser tests drive Debian's Chromium. Most run in its headless
// shell (chromium-headless-shell), Chromium's engine, network stack and
// DevTools without the browser's own windows and pages: the browser tests
// take about a quarter less CPU in it. Notifications are shown only by the
// whole browser (chromium), which the push test opens (newFullBrowser).
// Where the shell is missing, outside CI, every test uses chromium.
const (
	headlessShell = "/usr/bin/chromium-headless-shell"
	chromium      = "/usr/bin/chromium"
)

// needChromium skips a browser test with -short, and when chromium is
// missing, except in CI, where chromium and its headless shell must both
// be there (.ci/run installs them).
func needChromium(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives chromium")
	}
	for _, path := range []string{chromium, headlessShell} {
		if _, err := exec.LookPath(path); err != nil && os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; CI installs it with apt-get install %s", path, filepath.Base(path))
		}
	}
	if _, err := exec.LookPath(chromium); err != nil {
		t.Skipf("browser test skipped: %s is missing (apt-get install chromium chromium-headless-shell)", chromium)
	}
}

// sharedChromium is one browser that the browser tests of this test binary
// share, started by the first test that needs it and closed by TestMain.
// Each test gets a browser context of its own in it (see newBrowserIn),
// which keeps cookies, storage, service workers, permissions and downloads
// apart as a fresh profile would; starting the browser once spares each
// test about a second.
type sharedChromium struct {
	path    string
	once    sync.Once
	ctx     context.Context // the browser's first tab, which stays blank
	close   func()
	profile string
	err     error
}

var (
	shell = &sharedChromium{path: headlessShell}
	full  = &sharedChromium{path: chromium}
)

// start starts the browser, once, with the flags DESIGN.md gives, and
// returns its context.
func (b *sharedChromium) start(t *testing.T) context.Context {
	t.Helper()
	b.once.Do(func() {
		profile, err := os.MkdirTemp("", "recur-chromium-")
		if err != nil {
			b.err = err
			return
		}
		b.profile = profile
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(b.path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(profile), chromedp.WindowSize(390, 844),
			// Each window would otherwise preload the address bar's popups,
			// two renderers of chromium's own pages that the tests never
			// show: starting them, and keeping them running, took about an
			// eighth of the browser tests' CPU. And chromium would keep a
			// spare renderer ready for the next page, which the tests, each
			// in a browser context of its own, hardly ever used: the
			// browser tests started about 190 renderers more. Without them
			// and without CSS (see newBrowserIn), the browser tests take
			// about a tenth less CPU.
			chromedp.Flag("disable-features", "WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess"),
			// chromium says where it listens once it is up: on a machine
			// whose disk is busy, reading its files alone may take longer
			// than chromedp's 20 seconds.
			chromedp.WSURLReadTimeout(2 * time.Minute),
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithErrorf(chromedpError))
		b.ctx = ctx
		b.close = func() {
			chromedp.Cancel(ctx) // closes the browser and waits for it
			cancelCtx()
			cancelAlloc()
		}
		// Not bounded by a timeout: the browser lives as long as the
		// context of its first Run (chromedp bounds the start itself).
		b.err = chromedp.Run(ctx)
	})
	if b.err != nil {
		t.Fatalf("starting %s: %v", b.path, b.err)
	}
	return b.ctx
}

// chromedpError logs what chromedp reports as going wrong, but for the
// DOM events it has no handler for: this chromium sends one
// (DOM.topLayerElementsUpdated) on every dialog, and chromedp's page
// model needs none of them.
func chromedpError(format string, args ...any) {
	if strings.HasPrefix(format, "unhandled node event") {
		return
	}
	log.Printf(format, args...)
}

// closeSharedBrowsers closes the shared browsers that were started, and
// removes their profiles. Chromium's helper processes may still write into
// a profile for a moment after the browser is closed: the removal is tried
// a few times, within a bound.
func closeSharedBrowsers() {
	for _, b := range []*sharedChromium{shell, full} {
		if b.close == nil {
			continue
		}
		b.close()
		var err error
		if !wait.Poll(5*time.Second, func() bool { err = os.RemoveAll(b.profile); return err == nil }) {
			fmt.Fprintf(os.Stderr, "chromium profile %s left behind: %v\n", b.profile, err)
		}
	}
}

// newBrowser opens a window for t in the headless shell, or in chromium
// where the shell is missing (see newBrowserIn).
func newBrowser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	if _, err := exec.LookPath(headlessShell); err != nil {
		return newBrowserIn(t, full)
	}
	return newBrowserIn(t, shell)
}

// newFullBrowser opens a window for t in chromium, the whole browser, for
// what only it does (see newBrowserIn).
func newFullBrowser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	return newBrowserIn(t, full)
}

// newBrowserIn opens a window in a browser context of its own in the
// shared browser b, as a fresh browser would be, and collects every console error,
// uncaught exception and error log entry of its page. A tab opened from
// the returned context (chromedp.NewContext) opens in the same browser
// context; the test's end closes the window and drops the browser context
// with everything in it.
func newBrowserIn(t *testing.T, b *sharedChromium) (context.Context, func() []string) {
	t.Helper()
	bctx := b.start(t)
	browserExec := func(ctx context.Context) context.Context {
		return cdp.WithExecutor(ctx, chromedp.FromContext(bctx).Browser)
	}
	id, err := target.CreateBrowserContext().WithDisposeOnDetach(true).Do(browserExec(bctx))
	if err != nil {
		t.Fatal(err)
	}
	// A browser context starts without a window: the first page needs
	// one of its own (chromium refuses a tab with no window to put it in).
	tab, err := target.CreateTarget("about:blank").WithBrowserContextID(id).WithNewWindow(true).
		WithWidth(390).WithHeight(844).Do(browserExec(bctx))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelCtx := chromedp.NewContext(bctx, chromedp.WithTargetID(tab))
	// Tabs opened from ctx inherit the browser context.
	chromedp.FromContext(ctx).BrowserContextID = id
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		chromedp.Cancel(ctx) // closes the window
		cancelTime()
		cancelCtx()
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := target.DisposeBrowserContext(id).Do(browserExec(dctx)); err != nil {
			t.Logf("dropping the browser context: %v", err)
		}
	})
	var mu sync.Mutex
	var errs []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			errs = append(errs, "exception: "+ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				errs = append(errs, fmt.Sprintf("console.error: %v", ev.Args))
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError {
				errs = append(errs, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	// chromedp has chromium report every style sheet of the page
	// (CSS.enable), which no test reads.
	if err := chromedp.Run(ctx, css.Disable(), cdplog.Enable(), runtime.Enable()); err != nil {
		t.Fatal(err)
	}
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

// browserContext is the browser context of the tab of ctx (see newBrowser).
func browserContext(ctx context.Context) cdp.BrowserContextID {
	return chromedp.FromContext(ctx).BrowserContextID
}
