package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
)

// Signing out while the page's request for its event stream is still on
// its way (a slow machine, a slow network) leaves no refused request in the
// console: the page ends the stream before the session ends. The request is
// held in the browser until the server has ended the session and the
// sign-out's answer is held too, so the order is the one that lost the race.
func TestBrowserSignOutEndsStream(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	s.signIn("leaving@example.com")
	var mu sync.Mutex
	var paused []*fetch.EventRequestPaused
	ended := map[network.RequestID]string{} // the stream requests answered or failed, and how
	chromedp.ListenTarget(s.ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			paused = append(paused, ev)
		case *network.EventResponseReceived:
			ended[ev.RequestID] = fmt.Sprintf("answered %d", ev.Response.Status)
		case *network.EventLoadingFailed:
			ended[ev.RequestID] = "failed: " + ev.ErrorText
		}
	})
	// waitPaused waits for a held request whose address holds part.
	waitPaused := func(part string) *fetch.EventRequestPaused {
		t.Helper()
		var got *fetch.EventRequestPaused
		wait.Eventually(t, 10*time.Second, "a held request for "+part, func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, p := range paused {
				if strings.Contains(p.Request.URL, part) {
					got = p
				}
			}
			return got != nil
		}, pageSeen(s.ctx))
		return got
	}
	s.run(network.Enable(), fetch.Enable().WithPatterns([]*fetch.RequestPattern{
		{URLPattern: "*/api/captures/events*", RequestStage: fetch.RequestStageRequest},
		{URLPattern: "*/sign-out", RequestStage: fetch.RequestStageResponse},
	}))
	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`form[data-testid=write]`))
	stream := waitPaused("/api/captures/events")

	press(t, s.ctx, `form.signout button`)
	out := waitPaused("/sign-out") // the server has ended the session
	// The stream's request goes on now, after the session ended; a page
	// that still wants it gets the 401.
	if err := chromedp.Run(s.ctx, fetch.ContinueRequest(stream.RequestID)); err != nil {
		t.Logf("the held stream request is gone already: %v", err)
	}
	wait.Eventually(t, 10*time.Second, "the stream's request answered or given up", func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, ok := ended[stream.NetworkID]
		return ok
	}, pageSeen(s.ctx))
	mu.Lock()
	how := ended[stream.NetworkID]
	mu.Unlock()
	s.run(fetch.ContinueRequest(out.RequestID), fetch.Disable())
	waitCount(t, s.ctx, `form[data-testid=link]`, 1)
	if strings.HasPrefix(how, "answered") {
		t.Errorf("the page's event stream was %s after signing out; want it ended before", how)
	}
	for _, e := range s.consoleErrors() {
		t.Errorf("browser console: %s", e)
	}
}
