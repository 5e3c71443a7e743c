package web

import (
	"context"
	"net/http"
	"slices"

	"golang.org/x/text/language"

	"github.com/recur-journal/recur/store"
)

// localNames reads, with read, the names the pipeline has written in the
// signed-in person's app_locale (Recur analyses in English); for an
// English reader, or when there are none or they cannot be read, it is nil
// and everything keeps its English name.
func (a *App) localNames(r *http.Request, what string,
	read func(ctx context.Context, userID, locale string) (map[string]string, error)) map[string]string {
	v := viewerOf(r)
	tag, err := language.Parse(v.AppLocale)
	if base, _ := tag.Base(); err != nil || base.String() == "en" {
		return nil
	}
	names, err := read(r.Context(), v.User.ID, v.AppLocale)
	if err != nil {
		a.opts.Logger.ErrorContext(r.Context(), what, "error", err)
		return nil
	}
	return names
}

// patternNames says the signed-in person's patterns by their names in the
// person's app_locale, where the pipeline has written them; a pattern
// without one, or an English reader, keeps the English name. The names are
// read once, when it is called.
func (a *App) patternNames(r *http.Request) func(id, english string) string {
	names := a.localNames(r, "pattern names", a.opts.Store.PatternNames)
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
	names := a.localNames(r, "category names", a.opts.Store.CategoryNames)
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
