package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestInstallable(t *testing.T) {
	h := newHarness(t, nil)
	b := h.anonymous()
	get := func(path string) *http.Response {
		t.Helper()
		res, err := http.Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	t.Run("Manifest", func(t *testing.T) {
		res := get("/manifest.webmanifest")
		if got := res.Header.Get("Content-Type"); res.StatusCode != 200 || got != "application/manifest+json" {
			t.Fatalf("manifest: %d %q", res.StatusCode, got)
		}
		var m struct {
			Name, StartURL, Display, ThemeColor string
			Icons                               []struct{ Src, Sizes, Type string }
		}
		if err := json.NewDecoder(res.Body).Decode(&struct {
			Name       *string `json:"name"`
			StartURL   *string `json:"start_url"`
			Display    *string `json:"display"`
			ThemeColor *string `json:"theme_color"`
			Icons      *[]struct{ Src, Sizes, Type string }
		}{&m.Name, &m.StartURL, &m.Display, &m.ThemeColor, &m.Icons}); err != nil {
			t.Fatal(err)
		}
		// URLs relative to the manifest, so they hold under a sub-path too.
		if m.Name != "Recur" || m.StartURL != "./" || m.Display != "standalone" || m.ThemeColor == "" {
			t.Errorf("manifest %+v", m)
		}
		sizes := map[string]bool{}
		for _, icon := range m.Icons {
			r := get("/" + icon.Src)
			if r.StatusCode != 200 || r.Header.Get("Content-Type") != icon.Type {
				t.Errorf("icon %s: %d %s, want 200 %s", icon.Src, r.StatusCode, r.Header.Get("Content-Type"), icon.Type)
			}
			sizes[icon.Sizes] = true
		}
		if !sizes["192x192"] || !sizes["512x512"] {
			t.Errorf("icon sizes %v, want 192x192 and 512x512", sizes)
		}
	})
	t.Run("ServiceWorkerAtRoot", func(t *testing.T) {
		res := get("/sw.js")
		if got := res.Header.Get("Content-Type"); res.StatusCode != 200 || !strings.HasPrefix(got, "text/javascript") {
			t.Fatalf("sw.js: %d %q", res.StatusCode, got)
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"worker-src 'self'", "manifest-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %s", csp, want)
			}
		}
	})
	t.Run("OfflinePageHoldsNobodysData", func(t *testing.T) {
		alice := h.signIn(h.alice)
		alice.post("/entries", map[string][]string{"text": {"A private entry."}})
		a := alice.get("/offline")
		has(t, "GET /offline", a, 200, `data-testid="write"`, "No connection")
		if strings.Contains(a.body, "A private entry.") || strings.Contains(a.body, h.alice.ID) || strings.Contains(a.body, "alice@") {
			t.Error("the offline page, which the worker caches, shows the signed-in person's data")
		}
	})
	t.Run("PagesLinkManifestAndWorker", func(t *testing.T) {
		has(t, "GET /", b.get("/"), 200, `rel="manifest" href="/manifest.webmanifest"`, `src="/static/`, `/register-sw.js"`)
	})
	t.Run("PagesAreNotStored", func(t *testing.T) {
		alice := h.signIn(h.alice)
		for _, path := range []string{"/", "/settings/apps", "/settings/data", "/api/users/me", "/api/captures"} {
			req, _ := http.NewRequest("GET", h.srv.URL+path, nil)
			res, err := alice.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if got := res.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("GET %s Cache-Control %q, want no-store", path, got)
			}
		}
	})
}

// Every script and the stylesheet the offline page loads are in the
// service worker's cache, so the page shown without a connection loads
// whole, and a page whose request for a script is cut short falls back to
// the cached copy instead of failing.
func TestServiceWorkerCachesWhatTheOfflinePageLoads(t *testing.T) {
	h := newHarness(t, nil)
	b := h.anonymous()
	worker := b.get("/sw.js")
	m := regexp.MustCompile(`(?m)^const shell = \[([^\]]*)\];`).FindStringSubmatch(worker.body)
	if worker.status != 200 || m == nil {
		t.Fatalf("GET /sw.js = %d without a shell list\n%s", worker.status, worker.body)
	}
	page := b.get("/offline")
	loads := regexp.MustCompile(`<script[^>]* src="([^"]+)"|<link rel="stylesheet" href="([^"]+)"`).FindAllStringSubmatch(page.body, -1)
	if page.status != 200 || len(loads) == 0 {
		t.Fatalf("GET /offline = %d loading nothing\n%s", page.status, page.body)
	}
	for _, l := range loads {
		// The page names each file under the files' version
		// (/static/<version>/app.js); the worker keeps it under its name.
		src := regexp.MustCompile(`^/static/[0-9a-f]+/`).ReplaceAllString(l[1]+l[2], "/static/")
		if !strings.Contains(m[1], `"`+src+`"`) {
			t.Errorf("the offline page loads %s, which the service worker does not cache: %s", src, m[1])
		}
	}
}
