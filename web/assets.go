package web

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"
)

// The pages name the stylesheet, scripts and icons under the version of
// the files the binary holds: /static/<version>/app.js. A browser keeps
// them for a year and loads the next page without asking for them, and
// a new release, whose files differ, names them under a new version. A
// script's own imports (./outbox.js) resolve under the same version.
// /static/app.js, without a version, still answers, asked again on every
// use: the service worker keeps the offline shell under those names.

// assetVersion is the version of the embedded static files: the first
// twelve hex digits of a SHA-256 over their names and contents.
var assetVersion = sync.OnceValue(func() string { return filesVersion(FS, "static") })

// filesVersion hashes the names and contents of the files under dir in
// fsys, in the order WalkDir gives them (lexical).
func filesVersion(fsys fs.FS, dir string) string {
	var names []string
	err := fs.WalkDir(fsys, dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, path)
		}
		return err
	})
	if err != nil {
		panic(err) // the files are part of the binary
	}
	h := sha256.New()
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic(err)
		}
		// Each file as its name, a zero byte, its length and its bytes, so
		// that no two sets of files hash alike by moving bytes between them.
		h.Write(binary.LittleEndian.AppendUint64(append([]byte(name), 0), uint64(len(b))))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// assetPath is the path a page names the static file name by, under base.
func assetPath(base, name string) string {
	return base + "/static/" + assetVersion() + "/" + name
}

// serveStatic serves static/<name>. Under the binary's own version it may
// be kept for a year: those bytes never change under that name. Under
// none, or another version (a page from before an upgrade), the browser
// asks again on every use, and gets the files this binary holds.
func (a *App) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if strings.ContainsAny(name, `/\`) || name == ".." {
		// Only the files the pages name, nothing outside the folder (a
		// name may hold an escaped slash).
		a.notFound(w, r)
		return
	}
	if r.PathValue("version") == assetVersion() {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	http.ServeFileFS(w, r, FS, "static/"+name)
}
