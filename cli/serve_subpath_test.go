package cli

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/recur-journal/recur/internal/apitest"
	"github.com/recur-journal/recur/internal/smtptest"
)

// TestSubPath serves Recur under base_url's path, as a proxy that keeps
// the prefix (https://home.example/journal → 127.0.0.1:PORT/journal)
// passes it on: the API, a page and a static asset answer under the
// prefix, and the sign-in mail, sent through a real SMTP server, links
// under it too, to a link that signs in.
func TestSubPath(t *testing.T) {
	t.Parallel()
	lc := smtptest.Start(t)
	host, port, _ := net.SplitHostPort(lc.Addr)
	addr := apitest.FreeAddr(t)
	root := "http://" + addr + "/journal"
	dir := t.TempDir()
	startServer(t, dir, "RECUR_SERVER_ADDR="+addr, "RECUR_SERVER_BASE_URL="+root+"/",
		"RECUR_MAIL_SMTP_HOST="+host, "RECUR_MAIL_SMTP_PORT="+port, "RECUR_MAIL_TLS=none")
	if _, _, err := run(t, dir, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(t *testing.T, url string) (*http.Response, string) {
		t.Helper()
		res, err := noRedirect.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	for _, c := range []struct{ name, path, contentType string }{
		{"API", "/api/health-check", "application/json"},
		{"Page", "/", "text/html"},
		{"StaticAsset", "/static/app.js", "text/javascript"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, body := get(t, root+c.path)
			if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), c.contentType) {
				t.Errorf("GET %s = %d %s, want 200 %s: %.200s", root+c.path, res.StatusCode, res.Header.Get("Content-Type"), c.contentType, body)
			}
		})
	}
	t.Run("PrefixWithoutSlash", func(t *testing.T) {
		if res, _ := get(t, root); res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/journal/" {
			t.Errorf("GET %s = %d Location %q, want a redirect to /journal/", root, res.StatusCode, res.Header.Get("Location"))
		}
	})
	t.Run("MailedLink", func(t *testing.T) {
		// From the web app (its Origin), so the mail carries a link.
		req, _ := http.NewRequest("POST", root+"/api/magic-links/mails", strings.NewReader(`{"email":"me@example.com"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", "http://"+addr)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 204 {
			t.Fatalf("POST magic-links/mails = %d", res.StatusCode)
		}
		link := lc.Link(t)
		if !strings.HasPrefix(link, root+"/api/magic-links/login?") {
			t.Fatalf("mailed link %s, want one under %s/api", link, root)
		}
		res, body := get(t, link)
		if res.StatusCode >= 400 {
			t.Errorf("GET the mailed link = %d %.200s, want it to sign in", res.StatusCode, body)
		}
		if c := res.Header.Get("Set-Cookie"); c == "" {
			t.Errorf("GET the mailed link set no session cookie (%d, Location %q)", res.StatusCode, res.Header.Get("Location"))
		}
		// Signed in, the browser lands on the journal under the prefix.
		if l := res.Header.Get("Location"); l != "/journal/" {
			t.Errorf("GET the mailed link = %d Location %q, want /journal/", res.StatusCode, l)
		}
		// Signed in, each page's links, scripts and forms stay under the prefix.
		session := res.Header.Get("Set-Cookie")
		session, _, _ = strings.Cut(session, ";")
		for _, path := range []string{"/", "/settings", "/settings/security", "/patterns", "/calendar", "/calendar?year=2026", "/offline"} {
			req, _ := http.NewRequest("GET", root+path, nil)
			req.Header.Set("Cookie", session)
			res, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			urls := linkAttr.FindAllStringSubmatch(string(b), -1)
			if res.StatusCode != 200 || len(urls) < 5 {
				t.Fatalf("GET %s = %d with %d links, want the page signed in", path, res.StatusCode, len(urls))
			}
			for _, u := range urls {
				if !strings.HasPrefix(u[2], "/journal/") && !strings.HasPrefix(u[2], "#") && !strings.HasPrefix(u[2], "?") {
					t.Errorf("%s: %s=%q is outside /journal/", path, u[1], u[2])
				}
			}
		}
	})
}

// linkAttr finds a page's href, src and action attributes.
var linkAttr = regexp.MustCompile(`\b(href|src|action)="([^"]*)"`)
