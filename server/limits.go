package server

import "net/http"

// DefaultMaxImportBytes bounds an upload to POST /captures/import unless
// Options says otherwise. A Day One export with photos can be far larger:
// upload its JSON alone, or run recur import on the server.
const DefaultMaxImportBytes = 64 << 20

// importPath is the route whose body may exceed MaxBodyBytes.
const importPath = "/api/captures/import"

// pageImportPath is the web app's import form (web.ImportPath), which
// uploads the same files and so has the same limit.
const pageImportPath = "/settings/data/import"

// limitBodies bounds request bodies: uploads to the import route get their
// own, larger limit.
func limitBodies(next http.Handler, limit, importLimit int64) http.Handler {
	small := http.MaxBytesHandler(next, limit)
	large := http.MaxBytesHandler(next, importLimit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == importPath || r.URL.Path == pageImportPath {
			large.ServeHTTP(w, r)
			return
		}
		small.ServeHTTP(w, r)
	})
}
