package i18n

import (
	"testing"
	"time"
)

// A locale says a key in its language, falls back to English for a key no
// catalogue has, and picks the plural form the language's rules ask for.
func TestLocaleTranslates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tag, key string
		args     []any
		want     string
	}{
		{"de", "Journal", nil, "Tagebuch"},
		{"pt-BR", "Sign out", nil, "Sair"},
		{"fr", "Not a key of any catalogue", nil, "Not a key of any catalogue"},
		{"en", "%d of the %d model servers do not work; the others take their calls.", []any{1, 3}, "1 of the 3 model servers does not work; the others take its calls."},
		{"en", "%d of the %d model servers do not work; the others take their calls.", []any{2, 3}, "2 of the 3 model servers do not work; the others take their calls."},
		{"de", "%d of the %d model servers do not work; the others take their calls.", []any{1, 3}, "1 von 3 Modellservern funktioniert nicht; die anderen übernehmen seine Aufrufe."},
		{"fr", "%d of the %d model servers do not work; the others take their calls.", []any{0, 3}, "0 des 3 serveurs du modèle ne fonctionne pas ; les autres prennent ses appels."},
		{"xx-unknown", "Journal", nil, "Journal"},
	} {
		if got := For(c.tag).T(c.key, c.args...); got != c.want {
			t.Errorf("For(%q).T(%q) = %q, want %q", c.tag, c.key, got, c.want)
		}
	}
}

// Before sign-in the browser's Accept-Language picks the best language
// Recur speaks, and an unknown one is English.
func TestFromAcceptLanguage(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"de-AT,de;q=0.9,en;q=0.5": "de",
		"ja,es;q=0.8":             "es",
		"pt-BR":                   "pt",
		"en-GB,en;q=0.9":          "en",
		"ja":                      "en",
		"":                        "en",
		"%%%":                     "en",
	} {
		if got := FromAcceptLanguage(header).Lang; got != want {
			t.Errorf("FromAcceptLanguage(%q) = %s, want %s", header, got, want)
		}
	}
}

// The week starts on Monday in German, Spanish, French and Portuguese,
// on Sunday for American English, and where a region names its own day
// (Brazil) on that.
func TestFirstWeekday(t *testing.T) {
	t.Parallel()
	for tag, want := range map[string]time.Weekday{
		"en": time.Sunday, "en-US": time.Sunday, "en-GB": time.Monday, "de": time.Monday, "es": time.Monday,
		"fr": time.Monday, "pt": time.Monday, "pt-BR": time.Sunday, "de-CH": time.Monday,
	} {
		if got := For(tag).FirstWeekday(); got != want {
			t.Errorf("For(%q).FirstWeekday() = %s, want %s", tag, got, want)
		}
	}
}

// WeekStart finds the week's first day from any day of the week, for a
// week starting on Monday and one starting on Sunday.
func TestWeekStart(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) // a Monday
	for i := range 7 {
		day := base.AddDate(0, 0, i)
		if got := For("de").WeekStart(day); !got.Equal(base) {
			t.Errorf("de: WeekStart(%s %s) = %s, want Monday %s", day.Weekday(), day.Format(time.DateOnly), got.Format(time.DateOnly), base.Format(time.DateOnly))
		}
		sunday := base.AddDate(0, 0, -1)
		if i == 6 {
			sunday = base.AddDate(0, 0, 6)
		}
		if got := For("en-US").WeekStart(day); !got.Equal(sunday) {
			t.Errorf("en-US: WeekStart(%s %s) = %s, want %s", day.Weekday(), day.Format(time.DateOnly), got.Format(time.DateOnly), sunday.Format(time.DateOnly))
		}
	}
	if got, want := For("fr").Week()[0], time.Monday; got != want {
		t.Errorf("fr week starts %s, want %s", got, want)
	}
}

// Dates are written with the language's names and order.
func TestDate(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 21, 30, 0, 0, time.UTC) // a Monday
	for _, c := range []struct {
		tag  string
		form DateForm
		want string
	}{
		{"en", WeekdayDayMonthYear, "Monday, 2 March 2026"},
		{"de", WeekdayDayMonth, "Montag, 2. März"},
		{"de", MonthYear, "März 2026"},
		{"es", WeekdayDayMonth, "Lunes, 2 de marzo"},
		{"fr", WeekdayDateTime, "Lundi 2 mars 2026 à 21:30"},
		{"pt", MonthYear, "Março de 2026"},
	} {
		if got := For(c.tag).Date(at, c.form); got != c.want {
			t.Errorf("For(%q).Date(%s) = %q, want %q", c.tag, c.form, got, c.want)
		}
	}
}

// Numbers take the language's separators.
func TestNumber(t *testing.T) {
	t.Parallel()
	for tag, want := range map[string]string{"en": "12,345", "de": "12.345", "fr": "12\u00a0345", "pt": "12.345"} {
		if got := For(tag).Number(12345); got != want {
			t.Errorf("For(%q).Number(12345) = %q, want %q", tag, got, want)
		}
	}
}

// A sentence made with fmt from a key with arguments is read back and said
// in the locale's language, its numbers in the locale's form; English
// keeps it as made, and a sentence of no key stays as it is.
func TestSentenceReadsBackFormattedKeys(t *testing.T) {
	t.Parallel()
	made := "The text may not be longer than 10000 characters; it has 10001. Split it into several entries."
	for _, c := range []struct{ tag, in, want string }{
		{"de", made, "Der Text darf höchstens 10.000 Zeichen lang sein; er hat 10.001. Teil ihn auf mehrere Einträge auf."},
		{"fr", "The limit may not be greater than 100.", "Le champ limit ne peut pas dépasser 100."},
		{"en", made, made},
		{"de", "Nothing the catalogue holds: 100%.", "Nothing the catalogue holds: 100%."},
		{"es", "The year must be between 1900 and 9999.", "El año debe estar entre 1900 y 9999."},
		{"de", "Too many attempts. Try again in 1 second.", "Zu viele Versuche. Versuch es in 1 Sekunde wieder."},
		{"fr", "The server is busy checking other passwords. Try again in 2 seconds.", "Le serveur est occupé à vérifier d’autres mots de passe. Réessaie dans 2 secondes."},
		{"pt", "Too many wrong passwords for this account: try again after 14:05 UTC.", "Senhas erradas demais para esta conta: tente de novo depois das 14:05 UTC."},
	} {
		if got := For(c.tag).Sentence(c.in); got != c.want {
			t.Errorf("For(%q).Sentence(%q) = %q, want %q", c.tag, c.in, got, c.want)
		}
	}
}
