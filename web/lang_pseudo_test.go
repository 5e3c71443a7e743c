package web_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/recur-journal/recur/store"
)

// pseudoMarks are what the pseudo-locale puts in every word it says.
const pseudoMarks = "áƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ~"

// notWords are pieces a page shows that are no one's language: data the
// person wrote or the analysis named, addresses, zones, identifiers and
// the names of languages in themselves.
var notWords = regexp.MustCompile(`^(` +
	`[A-Z][A-Za-z]+(/[A-Za-z_+-]+)+|UTC|` + // time zones
	`[a-z]+:[a-z]+|` + // scopes
	`[A-Z2-7]{16,}|[0-9]{4} · Recur|[a-z0-9]{4,5}-[a-z0-9]{4,5}|` + // a two-factor secret; the year's page title; a recovery code
	`\S+@\S+|https?://\S+|/api/docs/api|Recur|ntfy|Go-http-client|test|` +
	`.+ \([a-z]{2}(-[A-Z]{2}|-XA)?\)` + // a language by its name and tag
	`)$`)

// With app_locale set to the pseudo-locale, which accents every word it
// says, no page a person reaches shows a word that does not come from the
// catalogue, beside their own data: text written into a page, a refusal
// made up on the spot, or a label left out of the catalogue.
func TestPagesSayNothingOutsideTheCatalogue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	h := newHarnessAt(t, nil, func() time.Time { return now })
	setPassword(t, h.store, h.alice, "correct horse battery")
	data := append(h.danaLoop(now), "Dana went at my work and I stayed late.", "stayed late", "criticism from Dana", "staying late", "Dana")
	entry := h.write(h.alice, "A calm walk.", now.Add(-time.Hour), store.NewTag{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"})
	data = append(data, "A calm walk.")
	h.detect(h.alice)
	h.setLocale(h.alice, "en-XA")
	b := h.signIn(h.alice)
	review := b.get("/review").location
	var patterns []string
	list, _, err := h.store.ListPatterns(t.Context(), h.alice.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) == 0 {
		t.Fatalf("patterns %v, %v", list, err)
	}
	for _, p := range list {
		patterns = append(patterns, "/patterns/"+p.ID)
	}
	check := func(where string, a answer) {
		t.Helper()
		for _, piece := range visibleTexts(a.body) {
			if strings.ContainsAny(piece, pseudoMarks) || !regexp.MustCompile(`[A-Za-z]{3}`).MatchString(piece) || notWords.MatchString(piece) {
				continue
			}
			ours := false
			for _, d := range data {
				ours = ours || strings.Contains(d, piece) || strings.HasPrefix(piece, d)
			}
			if !ours {
				t.Errorf("%s (%d) shows %q, which is not from the catalogue", where, a.status, piece)
			}
		}
	}
	for _, path := range append(patterns, "/", "/?feeling=calm", "/entries/"+entry, "/patterns", "/calendar", "/calendar?month=2026-11",
		"/calendar?year=2026", "/feelings", review, "/settings", "/settings/security", "/settings/apps", "/settings/notifications",
		"/settings/data", "/nothing-here", "/?pattern=nope", "/feelings?months=0", "/review/2026-W99") {
		check(path, b.get(path))
	}
	for _, p := range []struct {
		path string
		form url.Values
	}{
		{"/entries", url.Values{"text": {""}}},
		{"/entries", url.Values{"text": {"x"}, "date": {"3000-01-01"}}},
		{"/settings", url.Values{"timezone": {"Mars/Base"}, "app_locale": {"en-XA"}}},
		{"/settings/apps", url.Values{"name": {""}}},
		{"/settings/notifications", url.Values{"kind": {"ntfy"}, "url": {"not a url"}}},
		{"/settings/notifications", url.Values{"kind": {"webhook"}, "url": {"http://127.0.0.1/x"}, "events": {"reminder"}}},
		{"/settings/security/confirm", url.Values{"password": {"nope nope"}}},
		{"/settings/security/confirm", url.Values{"password": {"correct horse battery"}}},
		{"/settings/security/password", url.Values{"password": {"a new password"}, "password_confirmation": {"another"}}},
		{"/settings/security/two-factor/confirm", url.Values{"code": {"123"}}},
	} {
		a := b.post(p.path, p.form)
		if a.status == 303 {
			a = b.get(a.location)
		}
		check("POST "+p.path, a)
	}
	// Two-factor sign-in turned on, with its recovery codes, and off.
	setup := b.post("/settings/security/two-factor", nil)
	check("POST /settings/security/two-factor", setup)
	secret := regexp.MustCompile(`data-testid="secret">([A-Z2-7]+)<`).FindStringSubmatch(setup.body)
	if secret == nil {
		t.Fatal("no secret shown")
	}
	code, _ := totp.GenerateCode(secret[1], h.store.Now())
	on := b.post("/settings/security/two-factor/confirm", url.Values{"code": {code}})
	mustHave(t, on, 200, `data-testid="recovery-codes"`)
	check("two-factor on", on)
	off := b.post("/settings/security/two-factor/disable", nil)
	if off.status == 303 {
		off = b.get(off.location)
	}
	check("two-factor off", off)
}
