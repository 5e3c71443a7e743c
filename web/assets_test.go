package web_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The pages name their stylesheet, scripts and icons under the version of
// the files the binary holds, where a browser may keep them for a year; a
// page loads them from its cache instead of asking again. Without a
// version, or under another (a page from before an upgrade), the same
// files are asked again on every use.
func TestStaticFilesAreKeptUnderTheirVersion(t *testing.T) {
	h := newHarness(t, nil)
	alice := h.signIn(h.alice)
	get := func(path string) (*http.Response, string) {
		t.Helper()
		res, err := http.Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(b)
	}
	named := regexp.MustCompile(`(?:src|href)="(/static/([^"/]*)/([^"/]+))"`)
	versions := map[string]bool{}
	var files [][]string
	for _, path := range []string{"/", "/settings", "/settings/notifications"} {
		page := alice.get(path)
		found := named.FindAllStringSubmatch(page.body, -1)
		if page.status != 200 || len(found) == 0 {
			t.Fatalf("GET %s = %d naming no static file under a version\n%s", path, page.status, page.body)
		}
		for _, f := range found {
			versions[f[2]] = true
			files = append(files, f)
		}
		if unversioned := regexp.MustCompile(`"/static/[^"/]+"`).FindString(page.body); unversioned != "" {
			t.Errorf("GET %s names %s without the files' version", path, unversioned)
		}
	}
	if len(versions) != 1 {
		t.Fatalf("the pages name their files under %d versions, want one: %v", len(versions), versions)
	}
	var version string
	for v := range versions {
		version = v
	}
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(version) {
		t.Errorf("version %q, want twelve hex digits", version)
	}
	for _, f := range files {
		res, body := get(f[1])
		if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s = %d, Cache-Control %q; want 200, kept for a year", f[1], res.StatusCode, res.Header.Get("Cache-Control"))
		}
		plain, plainBody := get("/static/" + f[3])
		if plain.StatusCode != 200 || plain.Header.Get("Cache-Control") != "no-cache" || plainBody != body {
			t.Errorf("GET /static/%s = %d, Cache-Control %q, same bytes %v; want 200, no-cache, the same file",
				f[3], plain.StatusCode, plain.Header.Get("Cache-Control"), plainBody == body)
		}
	}
	// A script's imports resolve under its own version.
	if res, body := get("/static/" + version + "/outbox.js"); res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") || body == "" {
		t.Errorf("GET /static/%s/outbox.js = %d, Cache-Control %q", version, res.StatusCode, res.Header.Get("Cache-Control"))
	}
	// A page from before an upgrade gets this binary's files, asked again.
	old, oldBody := get("/static/0123456789ab/app.js")
	_, appBody := get("/static/app.js")
	if old.StatusCode != 200 || old.Header.Get("Cache-Control") != "no-cache" || oldBody != appBody {
		t.Errorf("GET under another version = %d, Cache-Control %q, this binary's file %v; want 200, no-cache, this binary's file",
			old.StatusCode, old.Header.Get("Cache-Control"), oldBody == appBody)
	}
	// Only the files themselves: no listing, nothing outside the folder.
	for _, path := range []string{"/static/", "/static/" + version + "/", "/static/" + version + "/missing.js",
		"/static/" + version + "/..%2Ftemplates%2Flayout.html", "/static/..%2Ftemplates%2Flayout.html", "/static/" + version + "/..%5Clayout.html"} {
		if res, body := get(path); res.StatusCode != 404 || strings.Contains(body, "{{") {
			t.Errorf("GET %s = %d, want 404\n%.300s", path, res.StatusCode, body)
		}
	}
}
