package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/store"
)

// printPageOnFailure logs the page of ctx when the test has failed, so
// that a condition given up on shows what the page said instead.
func printPageOnFailure(t *testing.T, ctx context.Context) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		var text string
		chromedp.Run(ctx, chromedp.Evaluate(`document.body ? document.body.innerText : document.readyState`, &text))
		t.Logf("the page at %s said:\n%s", location(ctx), text)
	})
}

// firstEntry is the id of the entry listed first on the page.
func firstEntry(t *testing.T, ctx context.Context) string {
	t.Helper()
	return attr(t, ctx, `[data-capture-id]`, "data-capture-id")
}

// With JavaScript on, saving on the journal page puts the new entry at the
// top at once, without a reload, and its status then changes live; the
// form is empty again for the next one. With JavaScript off the form posts
// and the journal is shown again with the entry, as before.
func TestBrowserWriteWithoutReload(t *testing.T) {
	t.Parallel()
	needChromium(t)
	gate := &modelGate{}
	base, m, _, mails := browserApp(t, gate)
	ctx, consoleErrors := newBrowser(t)
	s := &browserSession{t: t, base: base, m: m, mails: mails, ctx: ctx}
	printPageOnFailure(t, ctx)
	u := s.signIn("live@example.com")

	gate.hold()
	stayOnPage(t, ctx)
	first := "The first entry of the day: coffee with Sam."
	s.run(chromedp.SendKeys(`textarea[name=text]`, first), chromedp.Click(`form[data-testid=write] button[type=submit]`))
	waitLive(t, ctx, `[data-capture-id]`, 1)
	second := "The second one: the train was late again."
	s.run(chromedp.SendKeys(`textarea[name=text]`, second), chromedp.Click(`form[data-testid=write] button[type=submit]`))
	waitLive(t, ctx, `[data-capture-id]`, 2)
	got := s.captures(u)
	if len(got) != 2 || got[0] != second {
		t.Fatalf("captures %q, want the two written, the second newest", got)
	}
	list, _, err := s.m.Store().ListCaptures(context.Background(), u.ID, store.Page{Page: 1, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if id := firstEntry(t, ctx); id != list[0].ID {
		t.Fatalf("the entry at the top is %s, want the one just written, %s", id, list[0].ID)
	}
	var text, left string
	s.run(chromedp.Text(`[data-capture-id] .text`, &text), chromedp.Value(`textarea[name=text]`, &left))
	if text != second || left != "" {
		t.Fatalf("the top entry says %q and the form holds %q; want the new entry and an empty form", text, left)
	}
	if status := attr(t, ctx, `[data-capture-id]`, "data-status"); status == "processed" {
		t.Fatalf("the new entry is %s while the model holds its answers", status)
	}
	screenshots(t, ctx, "write-live")
	streamOpen(t, ctx)
	gate.release()
	waitLive(t, ctx, `[data-capture-id][data-status=processed]`, 2)
	waitLive(t, ctx, `[data-capture-id] [data-status-words]`, 2)
	noConsoleErrors(t, consoleErrors())

	// Without JavaScript, in a tab of its own: the form posts, the server
	// redirects to the journal at the new entry.
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	printPageOnFailure(t, tab)
	if err := chromedp.Run(tab, emulation.SetScriptExecutionDisabled(true), chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`form[data-testid=write]`)); err != nil {
		t.Fatal(err)
	}
	third := "Written with scripts off."
	if err := chromedp.Run(tab, chromedp.SendKeys(`textarea[name=text]`, third), chromedp.Click(`form[data-testid=write] button[type=submit]`)); err != nil {
		t.Fatal(err)
	}
	waitCount(t, tab, `[data-capture-id]`, 3)
	if got := s.captures(u); len(got) != 3 || got[0] != third {
		t.Fatalf("captures %q, want the one written with scripts off too", got)
	}
	list, _, err = s.m.Store().ListCaptures(context.Background(), u.ID, store.Page{Page: 1, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if at := location(tab); !strings.HasSuffix(at, "/#entry-"+list[0].ID) {
		t.Fatalf("after posting without scripts the tab is at %s, want the journal at the new entry %s", at, list[0].ID)
	}
}
