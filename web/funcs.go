package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// reviewForm is what the "review" template needs: accept and reject
// buttons for a pattern or a correlation.
type reviewForm struct {
	ID, Action, Back string
	Status           store.PatternStatus
	AcceptLabel      string
	RejectSentence   string
}

// funcs are the templates' functions in loc's language: {{t "key" args}}
// says a message from the catalogue.
func funcs(loc *i18n.Locale) template.FuncMap {
	messages := scriptMessages(loc) // the same on every page of the language
	return template.FuncMap{
		"t":  loc.T,
		"th": func(key string, args ...any) template.HTML { return htmlMessage(loc, key, args...) },
		"strong": func(s string) template.HTML {
			return template.HTML("<strong>" + template.HTMLEscapeString(s) + "</strong>")
		},
		"code": func(s string) template.HTML {
			return template.HTML("<code>" + template.HTMLEscapeString(s) + "</code>")
		},
		"date":     func(t time.Time, form string) string { return loc.Date(t, i18n.DateForm(form)) },
		"number":   loc.Number,
		"formNote": formNote,
		"markdown": markdown,
		"messages": func() string { return messages },
		"feeling":  loc.Feeling,
		"sentence": loc.Sentence,
		"link": func(href, text string) template.HTML {
			return template.HTML(`<a href="` + template.HTMLEscapeString(href) + `">` + template.HTMLEscapeString(text) + `</a>`)
		},
		"weekday": func(name string) string {
			if d, ok := store.ParseWeekday(name); ok {
				return loc.Weekday(d)
			}
			return name
		},
		"impact":     func(impact string) string { return loc.T(impactWords[impact]) },
		"lockReason": func(l *journal.FeatureLock) string { return lockReason(loc, l) },
		"review": func(id string, status store.PatternStatus, action, back string) reviewForm {
			return reviewForm{ID: id, Status: status, Action: action, Back: back, AcceptLabel: loc.T("Accept"),
				RejectSentence: loc.T("Reject this pattern? Recur then leaves this topic alone from now on: it is no longer shown, and what you write about it later is not counted again.")}
		},
		"correlationReview": func(patternID, id string, status store.PatternStatus, name string) reviewForm {
			return reviewForm{ID: id, Status: status, Action: "/patterns/" + patternID + "/correlations/" + id, Back: "pattern", AcceptLabel: loc.T("Keep"),
				RejectSentence: loc.T("Reject %s for this pattern? It will not be shown with it again.", name)}
		},
	}
}

// htmlMessage is a message whose arguments are markup (strong, code, a
// link) or text to escape; the message's own text is escaped too. Numbers
// stay numbers, for the message's plural forms.
func htmlMessage(loc *i18n.Locale, key string, args ...any) template.HTML {
	marks := make([]any, len(args))
	var pieces []string
	for i, a := range args {
		switch v := a.(type) {
		case template.HTML:
			marks[i] = fmt.Sprintf("\x01%d\x01", i)
			pieces = append(pieces, marks[i].(string), string(v))
		case string:
			marks[i] = fmt.Sprintf("\x01%d\x01", i)
			pieces = append(pieces, marks[i].(string), template.HTMLEscapeString(v))
		default:
			marks[i] = a
		}
	}
	out := template.HTMLEscapeString(loc.T(key, marks...))
	return template.HTML(strings.NewReplacer(pieces...).Replace(out))
}

// impactWords says a pattern's impact band, as catalogue keys.
var impactWords = map[string]string{"low": i18n.Key("low impact"), "moderate": i18n.Key("moderate impact"), "high": i18n.Key("high impact")}

// lockReason says in loc's language why a feature is locked and what to
// do, from the lock's counts; the journal's own sentence (the API's) is
// English. An open lock, or one the catalogue cannot say, keeps it.
func lockReason(loc *i18n.Locale, l *journal.FeatureLock) string {
	if !l.Locked && l.Type == journal.LockPatterns {
		return loc.T("Open: you have written on %d different days.", l.Current)
	}
	if !l.Locked {
		return loc.Sentence(l.Reason)
	}
	switch {
	case l.Type == journal.LockFlows && l.Scope != "":
		return loc.T("A flow shows when one passage names what set it off, how it felt and what was done; no passage about this pattern has all three yet, so next time it happens write what set it off, how you felt and what you did.")
	case l.Type == journal.LockFlows:
		return loc.T("A flow shows when one passage names what set it off, how it felt and what was done; none of your patterns has one yet, so next time write what set it off, how you felt and what you did in one passage.")
	case l.Type == journal.LockPatterns:
		return loc.T("Patterns show once you have written on %d different days; you have written on %d, so write on %d more.",
			l.Required, l.Current, l.Required-l.Current)
	case l.Type == journal.LockCorrelations && l.Scope != "":
		return loc.T("Correlations compare days with this pattern against days without it and need %d of each; %d of the %d days are there.",
			l.Required/2, l.Current, l.Required)
	case l.Type == journal.LockCorrelations:
		return loc.T("Correlations compare days with a pattern against days without it and need %d of each, so %d days of writing; you have written on %d, so write on %d more.",
			l.Required/2, l.Required, l.Current, l.Required-l.Current)
	}
	return loc.Sentence(l.Reason)
}
