package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/journal"
)

// ImportPath is the page route an import form posts to. Its body may be as
// large as an upload to the API's import route (the server's limitBodies knows it).
const ImportPath = "/settings/data/import"

// batchView is a job batch as the data page shows it.
type batchView struct {
	ID, Name                     string
	Total, Pending, Done, Failed int
	Progress                     int
	Finished                     bool
}

type dataData struct {
	Batch      *batchView
	Error      string
	RetryAfter int
}

// data shows the import form, the progress of an import (?batch=ID) and
// the export links.
func (a *App) data(w http.ResponseWriter, r *http.Request) {
	var d dataData
	if id := r.URL.Query().Get("batch"); id != "" {
		b, err := a.opts.Store.FindJobBatch(r.Context(), viewerOf(r).User.ID, id)
		if err != nil {
			a.fail(w, r, err) // another person's batch, or none: 404
			return
		}
		d.Batch = &batchView{ID: b.ID, Name: b.Name, Total: b.Total, Pending: b.Pending, Done: b.Processed, Failed: b.Failed,
			Progress: b.Progress(), Finished: b.FinishedAt != nil || b.CancelledAt != nil}
	}
	a.render(w, r, http.StatusOK, "settings_data", page{Title: a.t(r, "Your data"), Nav: "settings", Data: d})
}

// importData reads an uploaded journal with the same importer, and the same
// limits, as POST /api/captures/import, and sends the browser to the page
// that follows its job batch.
func (a *App) importData(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	res, err := a.importer.Import(r.Context(), v.User.ID,
		journal.Upload{ContentType: r.Header.Get("Content-Type"), Body: r.Body})
	var ie *importer.Error
	var busy *journal.BusyError
	var tooLarge *http.MaxBytesError
	var space *journal.SpaceError
	switch {
	case errors.As(err, &space):
		a.opts.Logger.Error("import not spooled", "error", space.Err)
		a.render(w, r, http.StatusInsufficientStorage, "settings_data", page{Title: a.t(r, "Your data"), Nav: "settings",
			Data: dataData{Error: space.Message}})
		return
	case errors.As(err, &ie):
		a.render(w, r, http.StatusUnprocessableEntity, "settings_data", page{Title: a.t(r, "Your data"), Nav: "settings",
			Data: dataData{Error: ie.Error()}})
		return
	case errors.As(err, &tooLarge):
		a.render(w, r, http.StatusRequestEntityTooLarge, "settings_data", page{Title: a.t(r, "Your data"), Nav: "settings",
			Data: dataData{Error: a.t(r, "The upload is larger than %d MiB: upload the JSON of a Day One export without its photos, or run recur import on the server.", tooLarge.Limit>>20)}})
		return
	case errors.As(err, &busy):
		w.Header().Set("Retry-After", strconv.Itoa(busy.RetryAfter))
		a.render(w, r, http.StatusTooManyRequests, "settings_data", page{Title: a.t(r, "Your data"), Nav: "settings",
			Data: dataData{Error: busy.Message}})
		return
	case err != nil:
		a.fail(w, r, err)
		return
	}
	if a.opts.Analyser != nil && res.Batch.Pending > 0 {
		a.opts.Analyser.Notify()
	}
	http.Redirect(w, r, "/settings/data?batch="+res.Batch.ID, http.StatusSeeOther)
}
