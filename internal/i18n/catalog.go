package i18n

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/BurntSushi/toml"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

//go:embed catalog/*.toml
var files embed.FS

// File is one language's catalogue file as written.
type File struct {
	// Name is the language's name in itself, for the language picker.
	Name string `toml:"name"`
	// Date holds the names and patterns of dates.
	Date dateFile `toml:"date"`
	// Messages maps an English key to its translation.
	Messages map[string]string `toml:"messages"`
	// Plurals maps a key with a count to its forms by plural category.
	Plurals map[string]map[string]string `toml:"plurals"`
	// Feelings names each feeling of the vocabulary (English, as stored)
	// in the language: the model picks from the English words, people
	// read these.
	Feelings map[string]string `toml:"feelings"`
}

// ReadFile reads the catalogue file of lang; the tests read them all.
func ReadFile(lang string) (*File, error) {
	b, err := files.ReadFile("catalog/" + lang + ".toml")
	if err != nil {
		return nil, err
	}
	var f File
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		return nil, fmt.Errorf("catalogue %s: %w", lang, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return nil, fmt.Errorf("catalogue %s: unknown keys %v", lang, un)
	}
	return &f, nil
}

// cat is the catalogue built from every file.
type cat struct {
	langs   []string // en first
	names   map[string]string
	matcher language.Matcher
	builder *catalog.Builder
	dates   map[string]*dateTable
	plurals map[string]bool
	keys    map[string]bool // every key some catalogue translates
	forms   []sentenceForm  // the keys with arguments, to read sentences back
	english *File
	files   map[string]*File
	made    sync.Map // tag -> *Locale, see For
	madeN   atomic.Int64
	// pseudo is the pseudo-locale's catalogue, made when first asked for.
	pseudoOnce sync.Once
	pseudo     *catalog.Builder
}

// load builds the catalogue once. A broken file is a broken binary: it
// panics, and the catalogue's tests catch it first.
var load = sync.OnceValue(func() *cat {
	c, err := build()
	if err != nil {
		panic(err)
	}
	return c
})

// pluralForms are the case names a plural table may use.
var pluralForms = map[string]plural.Form{"zero": plural.Zero, "one": plural.One, "two": plural.Two,
	"few": plural.Few, "many": plural.Many, "other": plural.Other}

func build() (*cat, error) {
	names, err := fs.Glob(files, "catalog/*.toml")
	if err != nil {
		return nil, err
	}
	c := &cat{builder: catalog.NewBuilder(catalog.Fallback(language.English)), names: map[string]string{},
		dates: map[string]*dateTable{}, plurals: map[string]bool{}, keys: map[string]bool{}, files: map[string]*File{}}
	for _, name := range names {
		lang := strings.TrimSuffix(strings.TrimPrefix(name, "catalog/"), ".toml")
		f, err := ReadFile(lang)
		if err != nil {
			return nil, err
		}
		tag := language.Make(lang)
		for key, msg := range f.Messages {
			if err := c.builder.SetString(tag, key, msg); err != nil {
				return nil, fmt.Errorf("catalogue %s: %q: %w", lang, key, err)
			}
			c.keys[key] = true
		}
		for key, forms := range f.Plurals {
			m, err := pluralMessage(forms)
			if err != nil {
				return nil, fmt.Errorf("catalogue %s: %q: %w", lang, key, err)
			}
			if err := c.builder.Set(tag, key, m); err != nil {
				return nil, fmt.Errorf("catalogue %s: %q: %w", lang, key, err)
			}
			c.plurals[key] = true
		}
		d, err := newDateTable(&f.Date)
		if err != nil {
			return nil, fmt.Errorf("catalogue %s: %w", lang, err)
		}
		c.dates[lang], c.names[lang] = d, f.Name
		c.langs = append(c.langs, lang)
		c.files[lang] = f
		if lang == Default {
			c.english = f
		}
	}
	if c.english == nil {
		return nil, fmt.Errorf("catalogue: no %s.toml", Default)
	}
	slices.SortFunc(c.langs, func(a, b string) int {
		if a == Default || b == Default {
			return map[bool]int{true: -1, false: 1}[a == Default]
		}
		return strings.Compare(a, b)
	})
	tags := make([]language.Tag, len(c.langs))
	for i, l := range c.langs {
		tags[i] = language.Make(l)
	}
	c.matcher = language.NewMatcher(tags)
	// A sentence is made from its key, or from the English form of a key
	// with plural forms ("in 1 second").
	madeFrom := map[string]string{}
	for key := range c.keys {
		madeFrom[key] = key
	}
	for key := range c.plurals {
		madeFrom[key] = key
		for _, form := range c.english.Plurals[key] {
			madeFrom[form] = key
		}
	}
	c.forms = sentenceForms(madeFrom)
	return c, nil
}

// pluralMessage selects among forms by the first argument.
func pluralMessage(forms map[string]string) (catalog.Message, error) {
	if _, ok := forms["other"]; !ok {
		return nil, fmt.Errorf("plural forms lack other")
	}
	var cases []any
	// other last: plural.Selectf takes the first case that matches.
	for _, name := range []string{"zero", "one", "two", "few", "many", "other"} {
		if msg, ok := forms[name]; ok {
			cases = append(cases, pluralForms[name], msg)
		}
	}
	for name := range forms {
		if _, ok := pluralForms[name]; !ok {
			return nil, fmt.Errorf("unknown plural form %q", name)
		}
	}
	return plural.Selectf(1, "%d", cases...), nil
}

// locale makes the locale of a tag, in the catalogue language that matches it.
func (c *cat) locale(t language.Tag) *Locale {
	_, i, conf := c.matcher.Match(t)
	lang := c.langs[i]
	if conf == language.No {
		lang, t = Default, language.Make(Default)
	}
	return &Locale{Tag: t, Lang: lang, printer: message.NewPrinter(language.Make(lang), message.Catalog(c.builder)),
		dates: c.dates[lang], plurals: c.plurals, keys: c.keys, forms: c.forms, file: c.files[lang], english: c.english, first: firstWeekday(t, c.dates[lang].first)}
}

// Name is a language's name in itself, from its catalogue file.
func Name(lang string) string { return load().names[lang] }

// sundayFirst are regions whose weeks start on Sunday (CLDR's firstDay),
// among those that speak Recur's languages; the others start on the day
// their language's catalogue names.
var sundayFirst = map[string]bool{"US": true, "CA": true, "BR": true, "MX": true, "PH": true, "IL": true,
	"JP": true, "IN": true, "ZA": true, "PE": true, "CO": true, "VE": true, "GT": true, "HN": true,
	"SV": true, "NI": true, "PA": true, "DO": true, "PR": true, "MZ": true}

// firstWeekday is the first day of the week where t is spoken: its
// region's when it names one, its language's otherwise.
func firstWeekday(t language.Tag, langFirst time.Weekday) time.Weekday {
	if r, conf := t.Region(); conf == language.Exact {
		if sundayFirst[r.String()] {
			return time.Sunday
		}
		return time.Monday
	}
	return langFirst
}
