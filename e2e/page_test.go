package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
)

// pageSeen returns, for wait.Eventually, the page of ctx as it is: its address,
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

// loaded waits, boundedly, until the page of ctx has loaded. Chromium
// numbers a page's nodes anew once it is parsed (DOMContentLoaded): an
// action on a node found before then (chromedp.Value, Text, Click) fails
// with "No node with given id". A page reached by a click, whose nodes
// are then acted on, is waited for first.
func loaded(t *testing.T, ctx context.Context) {
	t.Helper()
	wait.Eventually(t, pageLimit, "the page loaded", func() bool {
		var done bool
		err := chromedp.Run(ctx, chromedp.Evaluate(`document.readyState === "complete"`, &done))
		return err == nil && done
	}, pageSeen(ctx))
}
