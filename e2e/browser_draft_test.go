package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recur-journal/recur/internal/wait"
)

// draftsKept counts the drafts this browser keeps (draft.js), of anyone.
func (s *browserSession) draftsKept() int {
	s.t.Helper()
	var n int
	s.run(chromedp.Evaluate(`Object.keys(localStorage).filter((k) => k.startsWith("recur-draft:")).length`, &n))
	return n
}

// waitField waits, boundedly, until the field sel holds want.
func (s *browserSession) waitField(sel, want string) {
	s.t.Helper()
	wait.Eventually(s.t, 10*time.Second, fmt.Sprintf("%s holding %q", sel, want), func() bool {
		var got string
		err := chromedp.Run(s.ctx, chromedp.Evaluate(fmt.Sprintf(`(e => e ? e.value : "")(document.querySelector(%q))`, sel), &got))
		return err == nil && got == want
	}, pageSeen(s.ctx))
}

// Unsaved writing survives a reload: the text typed into the write form
// and into an entry's edit form comes back, with a word that it did, until
// it is saved; saving drops the draft, and signing out forgets every draft
// of the person.
func TestBrowserDraftSurvivesReloadUntilSignOut(t *testing.T) {
	t.Parallel()
	s := newBrowserSession(t)
	printPageOnFailure(t, s.ctx)
	u := s.signIn("drafts@example.com")

	half := "Half a thought about the rain and"
	s.run(chromedp.SendKeys(`form[data-testid=write] textarea[name=text]`, half))
	s.run(chromedp.Reload(), chromedp.WaitVisible(`form[data-testid=write]`))
	s.waitField(`form[data-testid=write] textarea[name=text]`, half)
	waitCount(t, s.ctx, `[data-draft-note]`, 1)
	screenshots(t, s.ctx, "draft-restored")
	if got := s.captures(u); len(got) != 0 {
		t.Fatalf("captures %q, want none: a draft is not saved", got)
	}

	// Saved, the draft is gone: the form is empty after a reload.
	s.run(chromedp.SendKeys(`form[data-testid=write] textarea[name=text]`, " the walk home."))
	press(t, s.ctx, `form[data-testid=write] button[type=submit]`)
	waitCount(t, s.ctx, `[data-capture-id]`, 1)
	if got := s.captures(u); len(got) != 1 || got[0] != half+" the walk home." {
		t.Fatalf("captures %q, want the one written", got)
	}
	s.run(chromedp.Reload(), chromedp.WaitVisible(`form[data-testid=write]`))
	s.waitField(`form[data-testid=write] textarea[name=text]`, "")
	if n := s.draftsKept(); n != 0 {
		t.Fatalf("%d drafts kept after saving, want none", n)
	}

	// An edit left unsaved comes back on the entry's page too.
	id := firstEntry(t, s.ctx)
	edit := `form[action="/entries/` + id + `"] textarea[name=text]`
	s.run(chromedp.Navigate(s.base+"/entries/"+id), chromedp.WaitVisible(edit))
	s.run(chromedp.SendKeys(edit, "Then tea. "))
	var typed string
	s.run(chromedp.Value(edit, &typed))
	if !strings.Contains(typed, "Then tea.") || !strings.Contains(typed, half) {
		t.Fatalf("the edit form holds %q", typed)
	}
	s.run(chromedp.Reload(), chromedp.WaitVisible(edit))
	s.waitField(edit, typed)

	s.run(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(`form[data-testid=write]`))
	s.run(chromedp.SendKeys(`form[data-testid=write] textarea[name=text]`, "Not for the next person to read."))
	wait.Eventually(t, 10*time.Second, "two drafts kept", func() bool { return s.draftsKept() == 2 }, pageSeen(s.ctx))
	press(t, s.ctx, `form.signout button`)
	waitCount(t, s.ctx, `form[data-testid=link]`, 1)
	if n := s.draftsKept(); n != 0 {
		t.Errorf("%d drafts kept after signing out, want none", n)
	}
	s.signIn("drafts@example.com")
	s.waitField(`form[data-testid=write] textarea[name=text]`, "")
	var text string
	s.run(chromedp.Text(`main`, &text))
	if strings.Contains(text, "unsaved text is back") {
		t.Error("a draft came back after signing out and in")
	}
	for _, e := range s.consoleErrors() {
		t.Errorf("browser console: %s", e)
	}
}
