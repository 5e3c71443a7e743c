package web

import (
	"net/http"
	"slices"

	"golang.org/x/text/language"

	"github.com/recur-journal/recur/store"
)

// patternNames says the signed-in person's patterns by their names in the
// person's app_locale, where the pipeline has written them (Recur analyses
// in English); a pattern without one, or an English reader, keeps the
// English name. The names are read once, when it is called.
func (a *App) patternNames(r *http.Request) func(id, english string) string {
	same := func(_, english string) string { return english }
	v := viewerOf(r)
	tag, err := language.Parse(v.AppLocale)
	if base, _ := tag.Base(); err != nil || base.String() == "en" {
		return same
	}
	names, err := a.opts.Store.PatternNames(r.Context(), v.User.ID, v.AppLocale)
	if err != nil {
		a.opts.Logger.ErrorContext(r.Context(), "pattern names", "error", err)
		return same
	}
	if len(names) == 0 {
		return same
	}
	return func(id, english string) string {
		if name, ok := names[id]; ok {
			return name
		}
		return english
	}
}

// named is list with each pattern called by name, in a new slice.
func named(list []store.PatternRef, name func(id, english string) string) []store.PatternRef {
	out := make([]store.PatternRef, len(list))
	for i, p := range list {
		p.Name = name(p.ID, p.Name)
		out[i] = p
	}
	return out
}

// flowsNamed is flows with their triggers' and behaviours' categories
// called by their names in the viewer's language, where the pipeline has
// written them; the flows themselves are left as they are.
func (a *App) flowsNamed(r *http.Request, flows []store.Flow) []store.Flow {
	v := viewerOf(r)
	tag, err := language.Parse(v.AppLocale)
	if base, _ := tag.Base(); err != nil || base.String() == "en" {
		return flows
	}
	names, err := a.opts.Store.CategoryNames(r.Context(), v.User.ID, v.AppLocale)
	if err != nil {
		a.opts.Logger.ErrorContext(r.Context(), "category names", "error", err)
		return flows
	}
	if len(names) == 0 {
		return flows
	}
	out := slices.Clone(flows)
	for i := range out {
		for _, c := range []*string{&out[i].TriggerCategory, &out[i].BehaviourCategory} {
			if name, ok := names[*c]; ok {
				*c = name
			}
		}
	}
	return out
}
