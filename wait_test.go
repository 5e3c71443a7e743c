package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// eventually checks cond until it holds, for at most limit, and otherwise
// fails t saying what it waited for and what seen shows was there at the
// end (the page, a log). It waits on the condition, never for a time: a
// check that holds at once returns at once.
func eventually(t testing.TB, limit time.Duration, what string, cond func() bool, seen func() string) {
	t.Helper()
	if !poll(limit, cond) {
		t.Fatalf("%s: not within %s; at the end:\n%s", what, limit, seen())
	}
}

// poll checks cond until it holds, for at most limit, and reports whether
// it held.
func poll(limit time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(max(limit/200, 10*time.Millisecond))
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
}

// pageSeen returns, for eventually, the page of ctx as it is: its address,
// its text and its HTML (cut to the first 20,000 characters).
func pageSeen(ctx context.Context) func() string {
	return func() string {
		var url, text, html string
		chromedp.Run(ctx, chromedp.Location(&url),
			chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &text),
			chromedp.Evaluate(`document.documentElement ? document.documentElement.outerHTML : ""`, &html))
		if len(html) > 20000 {
			html = html[:20000] + "…"
		}
		return fmt.Sprintf("page %s\n--- text ---\n%s\n--- html ---\n%s", url, text, html)
	}
}
