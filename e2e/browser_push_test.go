package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
)

// With notifications allowed, the notifications settings offer to turn
// them on for this device, and the service worker shows a push message
// the server sent as a notification that leads to its page. Only the whole
// browser shows notifications: this test runs in chromium, not its shell.
func TestBrowserPushNotification(t *testing.T) {
	t.Parallel()
	s := browserSessionWith(t, newFullBrowser)
	s.signIn("push@example.com")
	s.run(browser.GrantPermissions([]browser.PermissionType{browser.PermissionTypeNotifications}).WithOrigin(s.base).WithBrowserContextID(browserContext(s.ctx)))

	var mu sync.Mutex
	var regID serviceworker.RegistrationID
	chromedp.ListenTarget(s.ctx, func(ev any) {
		if e, ok := ev.(*serviceworker.EventWorkerRegistrationUpdated); ok {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range e.Registrations {
				if !r.IsDeleted && strings.HasPrefix(r.ScopeURL, s.base) {
					regID = r.RegistrationID
				}
			}
		}
	})
	s.run(chromedp.Navigate(s.base+"/settings/notifications"), chromedp.WaitVisible(`[data-testid=push-on]`))
	var ready bool
	s.run(chromedp.Evaluate(`navigator.serviceWorker.ready.then((r) => !!r.active)`, &ready,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
		serviceworker.Enable())
	id := func() string { mu.Lock(); defer mu.Unlock(); return string(regID) }
	wait.Eventually(t, 20*time.Second, "the service worker's registration", func() bool { return id() != "" }, id)

	msg := `{"title":"New pattern: skipping meals","body":"\"skipping meals\" has come back on three different days.","type":"pattern.detected","url":"/patterns/0190-abc"}`
	s.run(serviceworker.DeliverPushMessage(s.base, serviceworker.RegistrationID(id()), msg))
	var shown []map[string]string
	seen := func() string {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		chromedp.Run(ctx, chromedp.Evaluate(`navigator.serviceWorker.ready.then((r) => r.getNotifications())
			.then((ns) => ns.map((n) => ({title: n.title, body: n.body, url: String(n.data && n.data.url)})))`, &shown,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		return strings.TrimSpace(strings.Join(func() []string {
			var out []string
			for _, n := range shown {
				out = append(out, n["title"]+" → "+n["url"])
			}
			return out
		}(), "; "))
	}
	// Asked every 100 ms: asked within milliseconds of the push, again and
	// again, chromium now and then never showed it (in about 1 of 8 runs
	// beside other browser tests on a busy machine; none in 16 at this pace).
	wait.EventuallyEvery(t, 20*time.Second, 100*time.Millisecond, "the push shown as a notification", func() bool {
		return seen() == "New pattern: skipping meals → /patterns/0190-abc"
	}, seen)
	if errs := s.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
}
