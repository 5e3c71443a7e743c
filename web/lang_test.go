package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
)

// getIn fetches path with an Accept-Language header, as a browser set to
// that language does.
func (b *browser) getIn(path, acceptLanguage string) answer {
	req, _ := http.NewRequest("GET", b.h.srv.URL+path, nil)
	req.Header.Set("Accept-Language", acceptLanguage)
	return b.send(req)
}

// setLocale sets u's app_locale, as the settings page does.
func (h *harness) setLocale(u *store.User, tag string) {
	h.t.Helper()
	if err := h.store.PutSetting(context.Background(), u.ID, &store.Setting{Key: store.SettingAppLocale, Value: tag}); err != nil {
		h.t.Fatal(err)
	}
}

// Before sign-in the page speaks the browser's language, and English to a
// browser that asks for none Recur speaks.
func TestSignInSpeaksTheBrowsersLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	b := h.anonymous()
	for _, c := range []struct{ accept, lang, want, notWant string }{
		{"de-DE,de;q=0.9,en;q=0.5", `lang="de-DE"`, "Anmeldelink per Mail schicken", "Email me a sign-in link"},
		{"es", `lang="es"`, "Enviarme un enlace de acceso", "Email me a sign-in link"},
		{"fr-CA,fr;q=0.8", `lang="fr-CA"`, "M’envoyer un lien de connexion", "Email me a sign-in link"},
		{"pt-BR", `lang="pt-BR"`, "Me enviar um link de login", "Email me a sign-in link"},
		{"ja", `lang="en"`, "Email me a sign-in link", "Anmeldelink"},
	} {
		got := b.getIn("/", c.accept)
		mustHave(t, got, 200, c.lang, c.want)
		mustNotHave(t, got, c.notWant)
	}
}

// Signed in, the layout and navigation speak the person's app_locale,
// whatever the browser asks for.
func TestLayoutSpeaksTheAppLocale(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.setLocale(h.alice, "de")
	got := h.signIn(h.alice).getIn("/", "en-US")
	mustHave(t, got, 200, `lang="de"`, ">Tagebuch</a>", ">Muster</a>", ">Kalender</a>", ">Einstellungen</a>", ">Abmelden</button>")
	mustNotHave(t, got, ">Journal</a>", ">Sign out</button>")
}

func mustNotHave(t *testing.T, a answer, notWants ...string) {
	t.Helper()
	for _, w := range notWants {
		if strings.Contains(a.body, w) {
			t.Errorf("the page holds %q", w)
		}
	}
}

// The sign-in mails speak the addressee's app_locale: the link and the
// code, subject and body, whatever language the browser that asked speaks.
func TestSignInMailsSpeakTheAppLocale(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.setLocale(h.alice, "de")
	h.setLocale(h.bob, "es")
	b := h.anonymous()
	if got := b.post("/sign-in", url.Values{"email": {"alice@example.com"}}); got.status != 200 {
		t.Fatalf("sign-in: status %d", got.status)
	}
	link := h.mail.next(t)
	if got, want := link.Subject, "Bei Recur anmelden"; got != want {
		t.Errorf("link mail subject %q, want %q", got, want)
	}
	for _, want := range []string{"Öffne diesen Link, um dich bei Recur anzumelden:", "Er gilt 15 Minuten."} {
		if !strings.Contains(link.Text, want) || !strings.Contains(link.HTML, strings.TrimSuffix(want, ":")) {
			t.Errorf("link mail lacks %q:\n%s\n%s", want, link.Text, link.HTML)
		}
	}
	if got := b.post("/sign-in/code", url.Values{"email": {"bob@example.com"}}); got.status != 200 {
		t.Fatalf("code: status %d", got.status)
	}
	code := h.mail.next(t)
	if got, want := code.Subject, "Tu código para entrar en Recur"; got != want {
		t.Errorf("code mail subject %q, want %q", got, want)
	}
	if want := "Tu código para entrar en Recur es:"; !strings.Contains(code.Text, want) || !strings.Contains(code.Text, code.Code) {
		t.Errorf("code mail lacks %q and its code:\n%s", want, code.Text)
	}
}

// A pattern is shown by its name in the reader's language once the
// pipeline has written it: on the journal, the patterns, its own page, the
// calendar and the week's review, its id unchanged. Without one, and for
// an English reader, it keeps its English name.
func TestPatternsShowTheirNameInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	id := h.lunchPattern(h.alice)
	b := h.signIn(h.alice)
	mustHave(t, b.get("/patterns/"+id), 200, "skipping meals")
	h.setLocale(h.alice, "de")
	p, err := h.store.FindPattern(context.Background(), h.alice.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	mustHave(t, b.get("/patterns/"+id), 200, "<h1>skipping meals</h1>")
	if err := h.store.SetCategoryName(context.Background(), p.CategoryID, "de", p.Name, "Mahlzeiten auslassen"); err != nil {
		t.Fatal(err)
	}
	review := b.get("/review").location
	for _, path := range []string{"/", "/patterns", "/patterns/" + id, "/calendar", review} {
		got := b.get(path)
		mustHave(t, got, 200, "Mahlzeiten auslassen", `/patterns/`+id+`"`)
		if strings.Contains(got.body, ">skipping meals<") {
			t.Errorf("%s holds the English name: %s", path, got.body[max(0, strings.Index(got.body, ">skipping meals<")-300):strings.Index(got.body, ">skipping meals<")+20])
		}
	}
	h.setLocale(h.alice, "en")
	mustHave(t, b.get("/patterns/"+id), 200, "<h1>skipping meals</h1>")
}

// The month grid starts its weeks on the locale's first day: Monday in
// German, Sunday in American English and Brazilian Portuguese, the column
// heads in the same order, and every day of the month is in it.
func TestCalendarWeekStartsOnTheLocalesFirstDay(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	b := h.signIn(h.alice)
	// 1 March 2026 is a Sunday; 31 March a Tuesday.
	for _, c := range []struct{ tag, first, head, last string }{
		{"de", "2026-02-23", `<th scope="col" abbr="Montag">Mo</th>`, "2026-04-05"},
		{"en", "2026-03-01", `<th scope="col" abbr="Sunday">Su</th>`, "2026-04-04"},
		{"pt-BR", "2026-03-01", `<th scope="col" abbr="domingo">dom</th>`, "2026-04-04"},
		{"fr", "2026-02-23", `<th scope="col" abbr="lundi">lu</th>`, "2026-04-05"},
	} {
		h.setLocale(h.alice, c.tag)
		got := b.get("/calendar?month=2026-03")
		mustHave(t, got, 200, `<thead><tr>`+c.head, `data-date="2026-03-31"`)
		dates := regexp.MustCompile(`<td data-date="([0-9-]+)"`).FindAllStringSubmatch(got.body, -1)
		if len(dates) == 0 || dates[0][1] != c.first || dates[len(dates)-1][1] != c.last || len(dates)%7 != 0 {
			t.Errorf("%s: the grid runs %v, want %s to %s in whole weeks", c.tag, dates, c.first, c.last)
		}
	}
}
