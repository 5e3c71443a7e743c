package web

import (
	"io/fs"
	"net/http"
)

// serveFile answers with one embedded static file under a name of its own,
// for the files a browser looks for at the root: the manifest and the
// service worker, whose scope is the folder it is served from.
func (a *App) serveFile(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(FS, name)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		w.Header().Set("Content-Type", contentType)
		// Always asked again, so a new worker or manifest takes over at the
		// next load.
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(b)
	}
}

// offline is the page the service worker shows when there is no
// connection: a write form whose entries wait on the device. It holds
// nobody's data, so the worker may keep it.
func (a *App) offline(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "offline", page{Title: a.t(r, "No connection")})
}
