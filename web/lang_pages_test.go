package web_test

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
)

var (
	scriptRe = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>`)
	attrRe   = regexp.MustCompile(`\s(?:placeholder|aria-label|title|alt|abbr|label)="([^"]*)"`)
	tagRe    = regexp.MustCompile(`<[^>]*>`)
	verbRe   = regexp.MustCompile(`%(?:\[\d+\])?[sd]`)
)

// visibleTexts are the pieces of a page a person reads or hears: text
// between tags and the attributes screen readers and tooltips say.
func visibleTexts(page string) []string {
	page = scriptRe.ReplaceAllString(page, " ")
	var out []string
	for _, m := range attrRe.FindAllStringSubmatch(page, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	for _, piece := range tagRe.Split(page, -1) {
		if s := strings.TrimSpace(html.UnescapeString(piece)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// englishLeft are the English texts of the catalogue (feelings included)
// that read differently in lang, as patterns matching a whole piece of a page (a %d or %s
// matches any number or words).
func englishLeft(t *testing.T, lang string) map[string]*regexp.Regexp {
	t.Helper()
	en, err := i18n.ReadFile("en")
	if err != nil {
		t.Fatal(err)
	}
	f, err := i18n.ReadFile(lang)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*regexp.Regexp{}
	add := func(english string) {
		parts := verbRe.Split(english, -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		out[english] = regexp.MustCompile(`^` + strings.Join(parts, `.+`) + `$`)
	}
	for key, msg := range f.Messages {
		if msg != key {
			add(key)
		}
	}
	for name, said := range f.Feelings {
		if said != name {
			add(name)
		}
	}
	for key := range f.Plurals {
		for _, form := range en.Plurals[key] {
			add(form)
		}
	}
	return out
}

// With app_locale de, no page a person reaches shows a sentence, label or
// heading of the English catalogue that German says otherwise.
func TestPagesHaveNoEnglishLeft(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.setLocale(h.alice, "de")
	patternID := h.lunchPattern(h.alice)
	entryID := h.write(h.alice, "Heute war ein ruhiger Tag.", h.store.Now().Add(-time.Hour))
	b := h.signIn(h.alice)
	year := h.store.Now().Format("2006")
	review := b.get("/review").location
	english := englishLeft(t, "de")
	// A German text that happens to be another key's English ("Filter")
	// is not English left.
	de, err := i18n.ReadFile("de")
	if err != nil {
		t.Fatal(err)
	}
	german := map[string]bool{}
	for _, said := range de.Messages {
		german[said] = true
	}
	for _, path := range []string{"/", "/?q=report", "/entries/" + entryID, "/patterns", "/patterns/" + patternID,
		"/calendar", "/calendar?year=" + year, review, "/settings", "/settings/security", "/settings/apps",
		"/settings/notifications", "/settings/data", "/feelings", "/?feeling=anxious", "/?from=2026-05-02&to=2026-05-01", "/?feeling=nope", "/nothing-here"} {
		got := b.get(path)
		want := map[bool]int{true: 404, false: 200}[path == "/nothing-here"]
		if strings.Contains(path, "from=") || strings.Contains(path, "=nope") {
			want = 422
		}
		if got.status != want {
			t.Fatalf("%s: status %d, want %d", path, got.status, want)
		}
		for _, piece := range visibleTexts(got.body) {
			if german[piece] {
				continue
			}
			for key, re := range english {
				if re.MatchString(piece) {
					t.Errorf("%s shows %q, English for the key %q", path, piece, key)
				}
			}
		}
	}
	// The sign-in page before anyone is signed in, in the browser's language.
	for _, piece := range visibleTexts(h.anonymous().getIn("/", "de").body) {
		for key, re := range english {
			if re.MatchString(piece) {
				t.Errorf("/ (signed out) shows %q, English for the key %q", piece, key)
			}
		}
	}
}
