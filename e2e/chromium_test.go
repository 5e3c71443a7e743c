package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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

// chromium is Debian's browser, which the browser tests drive.
const chromium = "/usr/bin/chromium"

// needChromium skips a browser test with -short, and when chromium is
// missing, except in CI, where it must be there (.ci/run installs it).
func needChromium(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives chromium")
	}
	if _, err := exec.LookPath(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; CI installs it with apt-get install chromium", chromium)
		}
		t.Skipf("browser test skipped: %s is missing (apt-get install chromium)", chromium)
	}
}

// shared is the one chromium the browser tests of this test binary share,
// started by the first of them and closed by TestMain. Each test gets a
// browser context of its own in it (see newBrowser), which keeps cookies,
// storage, service workers, permissions and downloads apart as a fresh
// profile would; starting the browser once spares each test about a
// second.
var shared struct {
	once    sync.Once
	ctx     context.Context // the browser's first tab, which stays blank
	close   func()
	profile string
	err     error
}

// sharedBrowser starts the shared chromium, once, with the flags DESIGN.md
// gives, and returns its context.
func sharedBrowser(t *testing.T) context.Context {
	t.Helper()
	shared.once.Do(func() {
		profile, err := os.MkdirTemp("", "recur-chromium-")
		if err != nil {
			shared.err = err
			return
		}
		shared.profile = profile
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
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
			// and without CSS (see newBrowser), the browser tests take
			// about a tenth less CPU.
			chromedp.Flag("disable-features", "WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess"),
			// chromium says where it listens once it is up: on a machine
			// whose disk is busy, reading its files alone may take longer
			// than chromedp's 20 seconds.
			chromedp.WSURLReadTimeout(2 * time.Minute),
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx)
		shared.ctx = ctx
		shared.close = func() {
			chromedp.Cancel(ctx) // closes the browser and waits for it
			cancelCtx()
			cancelAlloc()
		}
		// Not bounded by a timeout: the browser lives as long as the
		// context of its first Run (chromedp bounds the start itself).
		shared.err = chromedp.Run(ctx)
	})
	if shared.err != nil {
		t.Fatalf("starting %s: %v", chromium, shared.err)
	}
	return shared.ctx
}

// closeSharedBrowser closes the shared chromium, if it was started, and
// removes its profile. Chromium's helper processes may still write into
// the profile for a moment after the browser is closed: the removal is
// tried a few times, within a bound.
func closeSharedBrowser() {
	if shared.close == nil {
		return
	}
	shared.close()
	var err error
	if !wait.Poll(5*time.Second, func() bool { err = os.RemoveAll(shared.profile); return err == nil }) {
		fmt.Fprintf(os.Stderr, "chromium profile %s left behind: %v\n", shared.profile, err)
	}
}

// newBrowser opens a window in a browser context of its own in the shared
// chromium, as a fresh browser would be, and collects every console error,
// uncaught exception and error log entry of its page. A tab opened from
// the returned context (chromedp.NewContext) opens in the same browser
// context; the test's end closes the window and drops the browser context
// with everything in it.
func newBrowser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	bctx := sharedBrowser(t)
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
