package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// securityHeaders are the headers every answer must carry, whatever wrote it.
var securityHeaders = map[string]string{
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"X-Frame-Options":        "DENY",
}

// cspDirective returns the sources of a CSP directive, falling back to
// default-src as browsers do, and whether either was present.
func cspDirective(policy, name string) ([]string, bool) {
	directives := map[string][]string{}
	for _, d := range strings.Split(policy, ";") {
		fields := strings.Fields(d)
		if len(fields) > 0 {
			directives[strings.ToLower(fields[0])] = fields[1:]
		}
	}
	if v, ok := directives[name]; ok {
		return v, true
	}
	v, ok := directives["default-src"]
	return v, ok
}

// checkSecurityHeaders fails t unless header carries every security header,
// a CSP forbidding framing, and HSTS exactly when wantHSTS.
func checkSecurityHeaders(t *testing.T, header http.Header, wantHSTS bool) {
	t.Helper()
	for name, want := range securityHeaders {
		if got := header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	csp := header.Get("Content-Security-Policy")
	if ancestors, _ := cspDirective(csp, "frame-ancestors"); !slices.Equal(ancestors, []string{"'none'"}) {
		t.Errorf("CSP %q: frame-ancestors = %v, want 'none'", csp, ancestors)
	}
	for _, directive := range []string{"script-src", "style-src"} {
		sources, ok := cspDirective(csp, directive)
		if !ok {
			t.Errorf("CSP %q sets no %s (nor default-src)", csp, directive)
		}
		for _, bad := range []string{"'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:"} {
			if slices.Contains(sources, bad) {
				t.Errorf("CSP %q: %s allows %s", csp, directive, bad)
			}
		}
	}
	if got, want := header.Get("Strict-Transport-Security") != "", wantHSTS; got != want {
		t.Errorf("Strict-Transport-Security = %q, want present: %v", header.Get("Strict-Transport-Security"), want)
	}
}

func TestSecurityHeaders(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.MaxBodyBytes = 4096 })
	narrow := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")
	crossOrigin := func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }
	for _, sc := range []struct {
		name, method, path, token string
		body                      any
		status                    int
		prepare                   func(*http.Request)
		invalid                   bool // the request breaks the OpenAPI document on purpose
	}{
		{name: "APIJSON", method: "GET", path: "/api/users/me", token: h.tokenA, status: 200},
		{name: "OpenHealthCheck", method: "GET", path: "/api/health-check", status: 200},
		{name: "OpenAPIDocument", method: "GET", path: "/api/openapi.json", status: 200},
		{name: "APIReference", method: "GET", path: "/api/docs/api", status: 200},
		{name: "APIReferenceStylesheet", method: "GET", path: "/api/docs/style.css", status: 200},
		{name: "WebPage", method: "GET", path: "/", status: 200},
		{name: "WebScript", method: "GET", path: "/static/app.js", status: 200},
		{name: "WebStylesheet", method: "GET", path: "/static/style.css", status: 200},
		{name: "StaticFolderListing", method: "GET", path: "/static/", status: 404},
		{name: "UnknownAPIRoute", method: "GET", path: "/api/nothing-here", token: h.tokenA, status: 404, invalid: true},
		{name: "UnknownPage", method: "GET", path: "/nothing-here", status: 404},
		{name: "Unauthenticated", method: "GET", path: "/api/captures", status: 401},
		{name: "MissingScope", method: "GET", path: "/api/settings/me", token: narrow, status: 403},
		{name: "CrossOrigin", method: "POST", path: "/api/logout", status: 403, prepare: crossOrigin},
		{name: "BodyTooLarge", method: "POST", path: "/api/feedback", token: h.tokenA,
			body: `{"feedback":"` + strings.Repeat("a", 5000) + `"}`, status: 413, invalid: true},
		{name: "Invalid", method: "POST", path: "/api/feedback", token: h.tokenA, body: `{}`, status: 422, invalid: true},
	} {
		t.Run(sc.name, func(t *testing.T) {
			var body io.Reader
			if s, ok := sc.body.(string); ok {
				body = strings.NewReader(s)
			}
			req, err := http.NewRequest(sc.method, h.srv.URL+sc.path, body)
			if err != nil {
				t.Fatal(err)
			}
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			if sc.prepare != nil {
				sc.prepare(req)
			}
			if sc.invalid {
				req = offDocument(req)
			}
			res := h.send(req, sc.token)
			if got, want := res.Status, sc.status; got != want {
				t.Fatalf("status = %d, want %d\n%s", got, want, res.Body)
			}
			checkSecurityHeaders(t, res.Header, false)
		})
	}
	t.Run("TooManyRequests", func(t *testing.T) {
		var last response
		for range 10 {
			if last = h.do("POST", "/api/magic-links/mails", "", map[string]string{"email": "limit@example.com"}); last.Status == 429 {
				break
			}
		}
		if last.Status != 429 {
			t.Fatalf("status = %d, want 429 once the limit bites", last.Status)
		}
		checkSecurityHeaders(t, last.Header, false)
	})
}

func TestStaticFilesContentType(t *testing.T) {
	h := newHarness(t)
	for path, want := range map[string]string{
		"/static/app.js":      "javascript",
		"/static/style.css":   "text/css",
		"/api/docs/style.css": "text/css",
		"/":                   "text/html",
		"/api/docs/api":       "text/html",
	} {
		res := h.do("GET", path, "", nil)
		// With nosniff a browser runs a script or applies a stylesheet only
		// when its Content-Type says what it is.
		if ct := res.Header.Get("Content-Type"); res.Status != 200 || !strings.Contains(ct, want) {
			t.Errorf("GET %s = %d %q, want 200 and a type containing %q", path, res.Status, ct, want)
		}
	}
}

func TestStrictTransportSecurity(t *testing.T) {
	s := storetest.MustOpen(t)
	for _, base := range []string{"https://journal.example.com", "http://127.0.0.1:8080"} {
		t.Run(base, func(t *testing.T) {
			handler := server.New(server.Options{Store: s, BaseURL: base, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
			for _, path := range []string{"/", "/api/health-check", "/api/nothing-here"} {
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
				https := strings.HasPrefix(base, "https://")
				checkSecurityHeaders(t, rec.Header(), https)
				if got := rec.Header().Get("Strict-Transport-Security"); https && got != "max-age=31536000" {
					t.Errorf("GET %s: Strict-Transport-Security = %q, want max-age=31536000", path, got)
				}
			}
		})
	}
}

// inlineScript matches a script element with content rather than a src.
var inlineScript = regexp.MustCompile(`(?is)<script\b[^>]*>\s*[^<\s]`)

// inlineHandler matches event-handler attributes such as onclick=.
var inlineHandler = regexp.MustCompile(`(?i)<[^>]+\son[a-z]+\s*=`)

func TestPagesForbidInlineScript(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/", "/api/docs/api"} {
		t.Run(path, func(t *testing.T) {
			res := h.do("GET", path, "", nil)
			if res.Status != 200 {
				t.Fatalf("status = %d", res.Status)
			}
			csp := res.Header.Get("Content-Security-Policy")
			scripts, ok := cspDirective(csp, "script-src")
			if !ok || slices.Contains(scripts, "'unsafe-inline'") {
				t.Errorf("CSP %q lets inline script run", csp)
			}
			styles, ok := cspDirective(csp, "style-src")
			if !ok || slices.Contains(styles, "'unsafe-inline'") {
				t.Errorf("CSP %q lets inline style apply", csp)
			}
			// The page itself must not need what the policy forbids.
			body := string(res.Body)
			if m := inlineScript.FindString(body); m != "" {
				t.Errorf("page has an inline script: %q", m)
			}
			if m := inlineHandler.FindString(body); m != "" {
				t.Errorf("page has an inline event handler: %q", m)
			}
			if strings.Contains(body, "<style") || strings.Contains(body, "style=") {
				t.Error("page has inline style")
			}
		})
	}
}
