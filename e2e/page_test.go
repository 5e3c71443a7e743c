package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/recur-journal/recur/internal/wait"
)

// eventually and poll are the project's one way to wait (internal/wait),
// under the names these tests have always used.
func eventually(t testing.TB, limit time.Duration, what string, cond func() bool, seen func() string) {
	t.Helper()
	wait.Eventually(t, limit, what, cond, seen)
}

func poll(limit time.Duration, cond func() bool) bool { return wait.Poll(limit, cond) }

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
