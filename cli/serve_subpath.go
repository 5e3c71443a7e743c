package cli

import (
	"net/http"
	"net/url"
	"strings"
)

// basePath is the path of base_url without its trailing slash: "/journal"
// for https://home.example/journal, "" when Recur is served at the root.
func basePath(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.TrimRight(u.Path, "/")
}

// underPrefix serves h under the path prefix, as Miniflux does with its
// BASE_URL: a proxy that keeps the prefix passes /journal/api/... and h
// sees /api/.... The prefix alone is sent on to prefix + "/". A request
// without the prefix (a proxy that strips it) is served as it is, so both
// kinds of proxy work. A Location h answers with, a path from the root
// (a redirect to "/", the place of a new import), is put under the prefix.
func underPrefix(prefix string, h http.Handler) http.Handler {
	if prefix == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == prefix:
			http.Redirect(w, r, prefix+"/", http.StatusMovedPermanently)
			return
		case strings.HasPrefix(r.URL.Path, prefix+"/"):
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimPrefix(r.URL.Path, prefix)
			r2.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, prefix)
			r2.RequestURI = r2.URL.RequestURI()
			r = r2
		}
		h.ServeHTTP(&prefixedLocation{ResponseWriter: w, prefix: prefix}, r)
	})
}

// prefixedLocation puts a Location header that is a path from the root
// under prefix before the header is written.
type prefixedLocation struct {
	http.ResponseWriter
	prefix  string
	written bool
}

func (p *prefixedLocation) WriteHeader(code int) {
	if !p.written {
		p.written = true
		if l := p.Header().Get("Location"); strings.HasPrefix(l, "/") && !strings.HasPrefix(l, "//") {
			p.Header().Set("Location", p.prefix+l)
		}
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *prefixedLocation) Write(b []byte) (int, error) {
	if !p.written {
		p.WriteHeader(http.StatusOK)
	}
	return p.ResponseWriter.Write(b)
}

// Flush lets the event stream through; Unwrap lets http.ResponseController
// reach the connection.
func (p *prefixedLocation) Flush() {
	if !p.written {
		p.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(p.ResponseWriter).Flush()
}

func (p *prefixedLocation) Unwrap() http.ResponseWriter { return p.ResponseWriter }
