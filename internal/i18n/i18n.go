// Package i18n is the message catalogue: every sentence a person reads in
// the pages, mails and notifications, in each language Recur speaks, with
// the names of months and weekdays, date patterns and the first day of the
// week.
//
// A message's key is its English text, as the code writes it: a page says
// {{t "Sign out"}}, Go code says loc.T("Sign out"). The catalogue file of a
// language (catalog/de.toml) maps each key to its translation; English
// needs an entry only where it has plural forms. A key with a count takes
// the count as its first argument and lists its forms by CLDR plural
// category (one, few, many, other), chosen by golang.org/x/text's plural
// rules for the language.
//
// The catalogue is built once, on first use, from files embedded in the
// binary, and is only read after that.
package i18n

import (
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Default is the language of a person who has chosen none and whose browser
// asks for none that Recur speaks.
const Default = "en"

// maxMade bounds how many locales For keeps.
const maxMade = 1000

// Pseudo is the tag of the pseudo-locale: English made longer and accented,
// to find text that is not from the catalogue and layouts that break with
// longer words. It can be set as app_locale but is offered by no picker.
const Pseudo = "en-XA"

// Locale speaks one language: it translates messages, formats numbers and
// dates, and knows the first day of the week.
type Locale struct {
	// Tag is the language asked for, region included (pt-BR, en-GB).
	Tag language.Tag
	// Lang is the catalogue it speaks: en, de, es, fr, pt, or Pseudo.
	Lang    string
	printer *message.Printer
	dates   *dateTable
	plurals map[string]bool // keys with plural forms
	keys    map[string]bool // keys some catalogue translates
	forms   []sentenceForm  // keys with arguments, see Sentence
	file    *File           // the language's catalogue file
	english *File
	pseudo  bool
	first   time.Weekday
}

// For returns the locale of a language tag such as an app_locale setting
// ("de", "pt-BR"); a tag Recur does not speak is English.
func For(tag string) *Locale {
	c := load()
	// Pages ask once a request: a locale, only read once made, is kept
	// by its tag.
	if l, ok := c.made.Load(tag); ok {
		return l.(*Locale)
	}
	var l *Locale
	if strings.EqualFold(strings.TrimSpace(tag), Pseudo) {
		l = c.pseudoLocale()
	} else if t, err := language.Parse(tag); err == nil {
		l = c.locale(t)
	} else {
		l = c.locale(language.Make(Default))
	}
	// The tags people set are few; past maxMade, locales are made anew
	// rather than kept, so no one can grow the cache without bound.
	if c.madeN.Add(1) <= maxMade {
		c.made.Store(tag, l)
	}
	return l
}

// FromAcceptLanguage returns the locale a browser's Accept-Language header
// asks for best, or English.
func FromAcceptLanguage(header string) *Locale {
	c := load()
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return c.locale(language.Make(Default))
	}
	_, i, conf := c.matcher.Match(tags...)
	if conf == language.No {
		return c.locale(language.Make(Default))
	}
	// Keep the region the browser named (for the first day of the week),
	// as long as its language is the one matched.
	t := tags[0]
	if base, _ := t.Base(); base.String() != c.langs[i] {
		t = language.Make(c.langs[i])
	}
	return c.locale(t)
}

// Languages lists the languages Recur speaks, by code, English first.
func Languages() []string { return append([]string(nil), load().langs...) }

// T returns the message key in the locale's language, its arguments
// formatted in: numbers with the locale's separators. A key the catalogue
// lacks is said in English.
func (l *Locale) T(key string, args ...any) string {
	if l.pseudo && !l.plurals[key] {
		return l.printer.Sprintf(pseudoText(key), args...)
	}
	return l.printer.Sprintf(key, args...)
}

// Sentence translates a finished sentence that comes from elsewhere, such
// as an error's message: one the catalogue knows is said in the locale's
// language, and so is one made with fmt from a key with arguments ("The
// text may not be longer than 10000 characters."), its numbers in the
// locale's form (English keeps it as made); any other is returned as it
// is (it may hold a %).
func (l *Locale) Sentence(s string) string {
	if l.keys[s] || l.plurals[s] {
		return l.T(s)
	}
	// English says it as it was made.
	if l.Lang == Default {
		return s
	}
	if key, args, ok := readBack(l.forms, s); ok {
		return l.T(key, args...)
	}
	return s
}

// Messages are the translations of keys, unformatted, for a script to
// format: a string, or for a key with plural forms a map from CLDR plural
// category to string.
func (l *Locale) Messages(keys []string) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if forms, ok := l.file.Plurals[k]; ok || l.plurals[k] {
			if !ok || l.pseudo {
				forms = l.english.Plurals[k]
			}
			m := make(map[string]string, len(forms))
			for f, s := range forms {
				m[f] = l.maybePseudo(s)
			}
			out[k] = m
			continue
		}
		msg, ok := l.file.Messages[k]
		if !ok || l.pseudo {
			msg = k
		}
		out[k] = l.maybePseudo(msg)
	}
	return out
}

// Feeling names a feeling of the vocabulary in the locale's language; a
// name the catalogue lacks is shown as it is.
func (l *Locale) Feeling(name string) string {
	if l.pseudo {
		return pseudoText(name)
	}
	if s, ok := l.file.Feelings[name]; ok {
		return s
	}
	return name
}

// Number formats n with the locale's separators: 12,345 or 12.345.
func (l *Locale) Number(n int) string { return l.printer.Sprint(n) }

// Key marks a string as a message key where it is written down apart from
// where it is translated (a map of statuses, a list of labels), so the
// catalogue's tests find it. It returns key unchanged.
func Key(key string) string { return key }

// String is the locale's tag, as <html lang> takes it.
func (l *Locale) String() string {
	if l.pseudo {
		return Pseudo
	}
	return l.Tag.String()
}
