package web

import (
	"html/template"

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

var funcs = template.FuncMap{
	"formNote": formNote,
	"markdown": markdown,
	"review": func(id string, status store.PatternStatus, action, back string) reviewForm {
		return reviewForm{ID: id, Status: status, Action: action, Back: back, AcceptLabel: "Accept",
			RejectSentence: "Reject this pattern? Recur then leaves this topic alone from now on: it is no longer shown, and what you write about it later is not counted again."}
	},
	"correlationReview": func(patternID, id string, status store.PatternStatus, name string) reviewForm {
		return reviewForm{ID: id, Status: status, Action: "/patterns/" + patternID + "/correlations/" + id, Back: "pattern", AcceptLabel: "Keep",
			RejectSentence: "Reject " + name + " for this pattern? It will not be shown with it again."}
	},
}
