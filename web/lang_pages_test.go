package web_test

import (
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/mail"
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
			// A page's title is its own heading, then the app's name.
			if title, ok := strings.CutSuffix(s, " · Recur"); ok {
				out = append(out, title)
			}
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
	for key, forms := range f.Plurals {
		for _, form := range en.Plurals[key] {
			// French says "3 situations" too.
			if !slices.Contains(slices.Collect(maps.Values(forms)), form) {
				add(form)
			}
		}
	}
	return out
}

// The pages, answers to the sign-in forms and mails a person meets, each
// with a check that it is the page meant: a path (GET), or a form (POST).
type reached struct {
	path   string
	form   url.Values // posted when set
	status int
	holds  string // a mark of the page meant
}

// With app_locale set to each language, no page a signed-in person reaches
// (journal, entry, patterns, a pattern with its loop, month and year,
// feelings, settings, refusals, a page not found), no sign-in page, answer
// or mail, and no page title shows a sentence, label or heading of the
// English catalogue that the language says otherwise.
func TestPagesHaveNoEnglishLeft(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"de", "es", "fr", "pt"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			noEnglishLeft(t, lang)
		})
	}
}

func noEnglishLeft(t *testing.T, lang string) {
	h := newHarness(t, nil)
	h.setLocale(h.alice, lang)
	h.setLocale(h.bob, lang)
	patternID := h.lunchPattern(h.alice)
	entryID := h.write(h.alice, "Heute war ein ruhiger Tag.", h.store.Now().Add(-time.Hour))
	b := h.signIn(h.alice)
	now := h.store.Now()
	review := b.get("/review").location
	english := englishLeft(t, lang)
	// A translation that happens to be another key's English ("Filter")
	// is not English left.
	f, err := i18n.ReadFile(lang)
	if err != nil {
		t.Fatal(err)
	}
	translated := map[string]bool{}
	for _, said := range f.Messages {
		translated[said] = true
	}
	check := func(where, text string) {
		t.Helper()
		for _, piece := range visibleTexts(text) {
			if translated[piece] {
				continue
			}
			for key, re := range english {
				if re.MatchString(piece) {
					t.Errorf("%s shows %q, English for the key %q", where, piece, key)
				}
			}
		}
	}
	pages := []reached{
		{path: "/", status: 200}, {path: "/?q=report", status: 200}, {path: "/entries/" + entryID, status: 200},
		{path: "/patterns", status: 200}, {path: "/patterns/" + patternID, status: 200, holds: `data-testid="flows"`},
		{path: "/calendar", status: 200}, {path: "/calendar?month=" + now.Format("2006-01"), status: 200, holds: `table class="month"`},
		{path: "/calendar?year=" + now.Format("2006"), status: 200, holds: `svg class="year"`}, {path: review, status: 200},
		{path: "/settings", status: 200}, {path: "/settings/security", status: 200}, {path: "/settings/apps", status: 200},
		{path: "/settings/notifications", status: 200}, {path: "/settings/data", status: 200}, {path: "/feelings", status: 200},
		{path: "/?feeling=anxious", status: 200}, {path: "/?from=2026-05-02&to=2026-05-01", status: 422},
		{path: "/?feeling=nope", status: 422}, {path: "/feelings?months=99", status: 422}, {path: "/calendar?year=x", status: 422},
		{path: "/nothing-here", status: 404},
		// A change of security asks for a confirmation, by a mailed code
		// here; then two-factor sign-in is set up, and refusals follow.
		{path: "/settings/security/two-factor", form: url.Values{}, status: 423},
		{path: "/settings/security/confirm/code", form: url.Values{}, status: 303},
		{status: 200, holds: `name="code"`}, // where that answer leads
		{path: "/settings/security/confirm", form: url.Values{"code": {"999999x"}}, status: 422},
		{path: "/settings/security/confirm", status: 303},
		{path: "/settings/security/two-factor", form: url.Values{}, status: 200, holds: "<svg"},
		{path: "/settings/security/two-factor/confirm", form: url.Values{"code": {"000000"}}, status: 422},
		{path: "/settings/security/password", form: url.Values{"password": {"short"}, "password_confirmation": {"short"}}, status: 422},
	}
	var got answer
	for _, p := range pages {
		switch {
		case p.path == "":
			p.path = got.location
			got = b.get(got.location)
		case p.path == "/settings/security/confirm" && p.form == nil:
			m := h.mail.next(t)
			checkMail(t, check, "confirmation mail", m)
			got = b.post(p.path, url.Values{"code": {m.Code}})
		case p.form != nil:
			got = b.post(p.path, p.form)
		default:
			got = b.get(p.path)
		}
		if got.status != p.status || !strings.Contains(got.body, p.holds) {
			t.Fatalf("%s: status %d, want %d with %q", p.path, got.status, p.status, p.holds)
		}
		check(p.path, got.body)
	}
	// Signed out, the pages speak the browser's language; the mails speak
	// the addressee's app_locale.
	anon := h.anonymous()
	check("/ (signed out)", anon.getIn("/", lang).body)
	for _, p := range []reached{
		{path: "/sign-in", form: url.Values{"email": {"alice@example.com"}}, status: 200},
		{path: "/sign-in/code", form: url.Values{"email": {"bob@example.com"}}, status: 200},
		{path: "/sign-in/code/check", form: url.Values{"email": {"bob@example.com"}, "code": {"000000"}}, status: 422},
		{path: "/sign-in/password", form: url.Values{"email": {"bob@example.com"}, "password": {"not the password"}}, status: 422},
	} {
		got := anon.postIn(p.path, p.form, lang)
		if got.status != p.status {
			t.Fatalf("%s: status %d, want %d", p.path, got.status, p.status)
		}
		check(p.path+" (signed out)", got.body)
	}
	for _, what := range []string{"link", "code"} {
		checkMail(t, check, what+" mail", h.mail.next(t))
	}
	// The events a channel tells of are offered and listed in words, not
	// by the types the API names them by.
	loc := i18n.For(lang)
	if got := b.post("/settings/notifications", url.Values{"kind": {"mail"}, "events": {"pattern.detected"}}); got.status != 303 {
		t.Fatalf("adding a mail channel: status %d", got.status)
	}
	got = b.get("/settings/notifications")
	mustHave(t, got, 200, loc.T("Mail")+": ", loc.T("Tell me when")+" "+loc.T("a pattern shows up")+"</p>")
	mustNotHave(t, got, "<code>pattern.detected</code>", "<h3>mail: ")
	check("/settings/notifications (a channel)", got.body)
}

// checkMail checks a mail's subject, its text line by line, and its HTML.
func checkMail(t *testing.T, check func(where, text string), where string, m mail.Message) {
	t.Helper()
	text := "<p>" + html.EscapeString(m.Subject) + "</p><p>" + strings.ReplaceAll(html.EscapeString(m.Text), "\n", "</p><p>") + "</p>"
	check(where, text+m.HTML)
}

// postIn posts a form with an Accept-Language header, as a browser set to
// that language does.
func (b *browser) postIn(path string, form url.Values, acceptLanguage string) answer {
	req, _ := http.NewRequest("POST", b.h.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.h.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Accept-Language", acceptLanguage)
	return b.send(req)
}
