package web_test

import (
	"net/url"
	"regexp"
	"strconv"
	"testing"
)

// A page's refusal with a number in it is said in the reader's language,
// and a year is written as a year, never grouped like a count ("2.026").
func TestRefusalsWithNumbersSpeakTheReadersLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	b := h.signIn(h.alice)
	grouped := regexp.MustCompile(`\b[12][.\s ][0-9]{3}\b`)
	for _, c := range []struct{ tag, path, want string }{
		{"de", "/feelings?months=99", "Die Zahl der Monate muss zwischen 1 und 12 liegen."},
		{"es", "/feelings?months=0", "Los meses deben ser un número del 1 al 12."},
		{"fr", "/feelings?months=x", "Le nombre de mois doit aller de 1 à 12."},
		{"pt-BR", "/feelings?months=13", "Os meses precisam ser um número de 1 a 12."},
		{"de", "/calendar?year=abc", "Das Jahr muss ein Jahr wie " + strconv.Itoa(h.store.Now().Year()) + " sein, ab 1900."},
	} {
		h.setLocale(h.alice, c.tag)
		mustHave(t, b.get(c.path), 422, c.want)
	}
	h.setLocale(h.alice, "de")
	year := strconv.Itoa(h.store.Now().Year())
	got := b.get("/calendar?year=" + year)
	mustHave(t, got, 200, `aria-label="Jeder Tag von `+year+`,`, `aria-label="Jeder Tag von `+year+` ab `)
	if m := grouped.FindString(got.body); m != "" {
		t.Errorf("the year page writes %q, a year grouped like a count", m)
	}
}

// Too many wrong passwords while confirming are refused for a while: the
// page says so in the reader's language, with how long to wait.
func TestTooManyTriesSpeakTheReadersLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	setPassword(t, h.store, h.alice, "correct horse battery")
	h.setLocale(h.alice, "fr")
	b := h.signIn(h.alice)
	var got answer
	for range 20 {
		if got = b.post("/settings/security/confirm", url.Values{"password": {"not the password"}}); got.status == 429 {
			break
		}
	}
	mustHave(t, got, 429, "Trop de tentatives. Réessaie dans ")
	mustNotHave(t, got, "Too many")
}

// The journal's filter speaks the reader's language and still filters: a
// feeling is offered by its name in it with its own as the value, and a
// chosen filter is named in it.
func TestFiltersSpeakTheReadersLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	id := h.lunchPattern(h.alice)
	h.setLocale(h.alice, "de")
	b := h.signIn(h.alice)
	got := b.get("/?feeling=anxious&pattern=" + id)
	mustHave(t, got, 200, `<option value="anxious" selected>ängstlich</option>`, `>Gefühl: ängstlich <`, `>Muster: skipping meals <`)
	mustNotHave(t, got, "Feeling: ", "Pattern: ")
}
