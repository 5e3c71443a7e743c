package web

import (
	"net/url"
	"slices"
	"strings"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// filterForm is the journal's form of filters: what it offers, what is
// chosen, and each chosen value with the link that drops it.
type filterForm struct {
	Choices store.FilterChoices
	Chosen  journal.Filter
	Active  []activeFilter
	// Extra holds the chosen values past the first of each filter, which
	// the form's single fields cannot show but keeps.
	Extra []hiddenValue
}

// activeFilter is a chosen value as the page lists it, with the address of
// the list without it.
type activeFilter struct {
	Label, Value, Remove string
	Feeling              bool // Value is a feeling, said in the reader's language
}

type hiddenValue struct{ Name, Value string }

// First is the first value of a list, or "".
func (filterForm) First(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

// PatternName names a chosen pattern, or gives "" when it is none of the
// user's listed ones.
func (f filterForm) PatternName(id string) string {
	for _, p := range f.Choices.Patterns {
		if p.ID == id {
			return p.Name
		}
	}
	return ""
}

// newFilterForm lays out the form for the chosen filter.
func newFilterForm(chosen journal.Filter, choices store.FilterChoices) filterForm {
	ff := filterForm{Choices: choices, Chosen: chosen}
	all := chosen.Values()
	for _, field := range []struct{ name, label string }{
		{"feeling", i18n.Key("Feeling")}, {"pattern", i18n.Key("Pattern")}, {"person", i18n.Key("Person")},
		{"place", i18n.Key("Place")}, {"from", i18n.Key("From")}, {"to", i18n.Key("To")},
	} {
		for i, v := range all[field.name] {
			rest := url.Values{}
			for k, vs := range all {
				rest[k] = slices.Clone(vs)
			}
			rest[field.name] = slices.Delete(slices.Clone(all[field.name]), i, i+1)
			label := v
			if field.name == "pattern" {
				if name := ff.PatternName(v); name != "" {
					label = name
				}
			}
			ff.Active = append(ff.Active, activeFilter{Label: field.label, Value: label, Remove: "/?" + encodeQuery(rest), Feeling: field.name == "feeling"})
			if i > 0 {
				ff.Extra = append(ff.Extra, hiddenValue{field.name, v})
			}
		}
	}
	return ff
}

// filterHref is the address of the journal filtered by one value.
func filterHref(name, value string) string {
	return "/?" + encodeQuery(url.Values{name: {value}})
}

// encodeQuery encodes v with spaces as %20: a page's template would write
// the + of url.Values.Encode as &#43;.
func encodeQuery(v url.Values) string {
	return strings.ReplaceAll(v.Encode(), "+", "%20")
}
