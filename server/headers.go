package server

import (
	"net/http"
	"strings"

	"github.com/recur-journal/recur/server/apidocs"
)

// contentSecurityPolicy is sent on every answer, JSON and HTML alike, so no
// route can forget it. Pages load their scripts and stylesheets as files
// from this server (no 'unsafe-inline', no other host), talk only to this
// server (the manifest and service worker included), and may not be framed by anyone (frame-ancestors, with
// X-Frame-Options for browsers that predate it).
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// hstsValue tells browsers to reach this host over https only, for a year.
// Subdomains are left out: Recur owns its own host name, not the ones below
// it, which may serve other things over plain http.
const hstsValue = "max-age=31536000"

// withSecurityHeaders sets the security headers on every answer before any
// handler runs, so errors written by Huma, by the body limit, by the router's
// fallbacks and by a recovered panic carry them too.
//
// Referrer-Policy is no-referrer: the journal's links (signed sign-in links
// among them) must never travel to another site in a Referer header.
func withSecurityHeaders(next http.Handler, https bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		if strings.HasPrefix(r.URL.Path, "/api/") {
			// An account's answers are never kept by a browser or a proxy,
			// where the next person on the same device could be shown them.
			h.Set("Cache-Control", "no-store")
		}
		if https {
			// Only sent when base_url is https: over http a browser ignores
			// it, and a test setup on http must stay reachable.
			h.Set("Strict-Transport-Security", hstsValue)
		}
		next.ServeHTTP(w, r)
	})
}

// routePages serves the API reference with its stylesheet, and hands every
// path outside /api to the web app (see Mount).
func (s *Server) routePages(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/docs/api", s.serveDocs)
	mux.HandleFunc("GET /api/docs/"+apidocs.StylesheetName, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Write(apidocs.Stylesheet)
	})
	mux.HandleFunc("/", s.servePages)
}
