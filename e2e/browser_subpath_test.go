package e2e

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/apitest"
)

// TestBrowserSubPath runs Recur under base_url https://…/journal, as a
// proxy that keeps the prefix serves it: a person signs in through the
// mailed link, lands on /journal/, writes an entry and sees it, and every
// link, script, form and request of the journal, settings, patterns and
// calendar pages stays under /journal, as does the service worker, its
// scope and what it caches.
func TestBrowserSubPath(t *testing.T) {
	t.Parallel()
	needChromium(t)
	addr := apitest.FreeAddr(t)
	root := "http://" + addr + "/journal"
	_, _, _, mails := browserApp(t, &modelGate{}, "RECUR_SERVER_ADDR="+addr, "RECUR_SERVER_BASE_URL="+root+"/")
	ctx, consoleErrors := newBrowser(t)
	var mu sync.Mutex
	var requests []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	})
	run := func(actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatal(err)
		}
	}
	awaited := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
	under := func(what string, urls []string) {
		t.Helper()
		for _, u := range urls {
			if (strings.HasPrefix(u, "http:") || strings.HasPrefix(u, "https:")) && !strings.HasPrefix(u, root+"/") {
				t.Errorf("%s: %s is outside %s/", what, u, root)
			}
		}
	}

	run(network.Enable(), chromedp.Navigate(root+"/"), chromedp.SendKeys(`input[name=email]`, "new@example.com"),
		chromedp.Submit(`input[name=email]`), chromedp.WaitVisible(`#mail-note`))
	link := mails.Link(t)
	if !strings.HasPrefix(link, root+"/api/") {
		t.Fatalf("mailed link %s, want one under %s/api/", link, root)
	}
	run(chromedp.Navigate(link), chromedp.WaitVisible(`form[data-testid=write]`))
	if got := location(ctx); got != root+"/" {
		t.Errorf("the mailed link led to %s, want %s/", got, root)
	}
	run(chromedp.SendKeys(`textarea[name=text]`, "A long walk by the river this morning."),
		chromedp.Click(`form[data-testid=write] button[type=submit]`))
	waitCount(t, ctx, `[data-capture-id]`, 1)
	var text string
	run(chromedp.Text(`[data-capture-id]`, &text))
	if !strings.Contains(text, "A long walk by the river") {
		t.Errorf("the journal shows %q, want the entry written", text)
	}

	// Every href, src and action, resolved as the browser does.
	const links = `[...document.querySelectorAll("[href],[src],[action]")].map(e =>
		new URL(e.getAttribute("href") ?? e.getAttribute("src") ?? e.getAttribute("action"), location.href).href)`
	// The journal comes last: the service worker is then asked about on it.
	for _, path := range []string{"/settings", "/settings/security", "/patterns", "/calendar", "/calendar?year=2026", "/"} {
		var urls []string
		run(chromedp.Navigate(root+path), chromedp.WaitReady(`main`), chromedp.Evaluate(links, &urls))
		if len(urls) < 5 {
			t.Errorf("%s: only %d links %v", path, len(urls), urls)
		}
		under(path, urls)
	}

	var scope string
	run(chromedp.Evaluate(`navigator.serviceWorker.ready.then(r => r.scope)`, &scope, awaited))
	if scope != root+"/" {
		t.Errorf("the service worker's scope is %s, want %s/", scope, root)
	}
	var cached []string
	run(chromedp.Evaluate(`caches.keys().then(ns => Promise.all(ns.map(n => caches.open(n).then(c => c.keys())))).then(ks => ks.flat().map(r => r.url))`, &cached, awaited))
	if !slices.Contains(cached, root+"/offline") || !slices.Contains(cached, root+"/static/outbox.js") {
		t.Errorf("the service worker cached %v, want the offline page and scripts under %s/", cached, root)
	}
	under("the service worker's cache", cached)
	var manifest map[string]any
	run(chromedp.Evaluate(`(async () => {
		const res = await fetch(document.querySelector("link[rel=manifest]").href);
		const m = await res.json();
		return { start: new URL(m.start_url, res.url).href, scope: new URL(m.scope, res.url).href };
	})()`, &manifest, awaited))
	if manifest["start"] != root+"/" || manifest["scope"] != root+"/" {
		t.Errorf("the manifest starts at %v with scope %v, want both %s/", manifest["start"], manifest["scope"], root)
	}

	mu.Lock()
	seen := append([]string(nil), requests...)
	mu.Unlock()
	if len(seen) < 10 {
		t.Errorf("only %d requests seen: %v", len(seen), seen)
	}
	under("a request", seen)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("browser errors: %v", errs)
	}
}

// Under /journal, without a connection, the service worker answers a page
// with its offline page and keeps an entry written then, which arrives
// once the connection is back.
func TestBrowserSubPathOffline(t *testing.T) {
	t.Parallel()
	addr := apitest.FreeAddr(t)
	root := "http://" + addr + "/journal"
	s := newBrowserSession(t, "RECUR_SERVER_ADDR="+addr, "RECUR_SERVER_BASE_URL="+root+"/")
	s.base = root
	u := s.signIn("tunnel@example.com")
	ready := chromedp.Evaluate(`navigator.serviceWorker.ready.then(() => true)`, nil,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })
	s.run(chromedp.Navigate(root+"/"), chromedp.WaitVisible(`form[data-testid=write]`), ready)

	s.offline(true)
	var text string
	s.run(chromedp.Navigate(root+"/patterns"), chromedp.WaitVisible(`[data-offline]`), chromedp.Text(`main`, &text))
	if !strings.Contains(text, "No connection") {
		t.Errorf("offline, %s/patterns shows %q, want the offline page", root, text)
	}
	s.offline(false)

	s.run(chromedp.Navigate(root+"/"), chromedp.WaitVisible(`form[data-testid=write]`), ready)
	s.offline(true)
	written := "Written under /journal without a connection."
	s.run(chromedp.SendKeys(`textarea[name=text]`, written), chromedp.Click(`form[data-testid=write] button[type=submit]`))
	waitCount(t, s.ctx, `[data-outbox-id][data-status=waiting]`, 1)
	stayOnPage(t, s.ctx)
	s.offline(false)
	waitLive(t, s.ctx, `[data-outbox-id]`, 0)
	if got := s.captures(u); len(got) != 1 || got[0] != written {
		t.Fatalf("captures %q after going online, want the entry written offline", got)
	}
}
