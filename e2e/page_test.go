package e2e

import (
	"context"
	"fmt"

	"github.com/chromedp/chromedp"
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
