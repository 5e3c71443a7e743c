package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// TestEntriesShowMarkdown: the journal and an entry's page show the text
// as Markdown, both before and after it is read, and HTML in it as text.
func TestEntriesShowMarkdown(t *testing.T) {
	h := newHarness(t, nil)
	text := "# Monday\n\n**Tired** after <script>alert(1)</script> and [this](javascript:alert(1))."
	read := h.write(h.alice, text, h.store.Now().Add(-time.Hour), store.NewTag{Type: store.TagNegativeFeeling, Name: "tired", FeelingID: "tired"})
	waiting := h.write(h.alice, text, h.store.Now().Add(-2*time.Hour))
	alice := h.signIn(h.alice)
	// The read entry is one situation, marked inside the Markdown.
	marked := `<mark class="situation">`
	for path, want := range map[string][]string{
		"/":                   {"<h3>Monday</h3>", "<strong>Tired</strong>"},
		"/entries/" + waiting: {"<h3>Monday</h3>", "<strong>Tired</strong>"},
		"/entries/" + read:    {`<div class="text marked md"><h3>` + marked + "Monday</mark></h3>", "<strong>" + marked + "Tired</mark></strong>"},
	} {
		a := alice.get(path)
		has(t, "GET "+path, a, 200, append(want, "&lt;script&gt;alert(1)&lt;/script&gt;")...)
		for _, bad := range []string{"<script>alert", `href="javascript`, `href=""`} {
			if strings.Contains(a.body, bad) {
				t.Errorf("GET %s holds %q", path, bad)
			}
		}
	}
}
