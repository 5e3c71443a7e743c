package web

import (
	"net/http"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/notify"
)

// reviewData is the weekly review page's data.
type reviewData struct {
	*notify.Review
	Last     time.Time // the last day of the week
	Sections []reviewSection
}

// reviewSection is one list of the review.
type reviewSection struct {
	Title, Test, Empty string
	List               []notify.ReviewPattern
}

func (a *App) reviewRoutes() {
	if a.opts.Notifier == nil {
		a.opts.Notifier = notify.New(notify.Options{Store: a.opts.Store, Logger: a.opts.Logger})
	}
	a.mux.HandleFunc("GET /review", a.signedIn(a.thisWeeksReview))
	a.mux.HandleFunc("GET /review/{week}", a.signedIn(a.showReview))
}

// thisWeeksReview sends the viewer to the review of the week they are in.
func (a *App) thisWeeksReview(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	http.Redirect(w, r, "/review/"+notify.WeekOf(a.opts.Store.Now().In(v.Loc)), http.StatusSeeOther)
}

// showReview shows a week's review: what was new, came back, went quiet,
// and how the accepted patterns moved.
func (a *App) showReview(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	rev, err := a.opts.Notifier.Review(r.Context(), v.User.ID, r.PathValue("week"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	name := a.patternNames(r)
	for _, list := range [][]notify.ReviewPattern{rev.New, rev.CameBack, rev.Quiet, rev.Accepted} {
		for i := range list {
			list[i].Name = name(list[i].ID, list[i].Name)
		}
	}
	a.render(w, r, http.StatusOK, "review", page{Title: a.t(r, "Week %s", rev.Week), Nav: "calendar",
		Data: reviewData{Review: rev, Last: rev.To.AddDate(0, 0, -1), Sections: []reviewSection{
			{Title: i18n.Key("New this week"), Test: "new", List: rev.New, Empty: i18n.Key("No new patterns this week.")},
			{Title: i18n.Key("Came back"), Test: "came-back", List: rev.CameBack, Empty: i18n.Key("Nothing you knew of came back this week.")},
			{Title: i18n.Key("Went quiet"), Test: "quiet", List: rev.Quiet, Empty: i18n.Key("Nothing seen the week before went quiet.")},
		}}})
}
