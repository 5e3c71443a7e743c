package server_test

import (
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/recur-journal/recur/server"
)

// Links in API answers are on the host the request was sent to: its Host,
// or what a trusted proxy says in X-Forwarded-Host and -Proto. base_url
// plays no part, and from any other peer the forwarded headers are ignored.
func TestListLinksFollowTheRequest(t *testing.T) {
	configured := func(o *server.Options) { o.BaseURL = "https://configured.example" }
	direct := newHarness(t, configured)
	proxied := newHarness(t, configured, func(o *server.Options) {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	})
	for _, c := range []struct {
		name    string
		h       *harness
		headers map[string]string
		want    string
	}{
		{"Host", direct, nil, "http://recur.test:8080"},
		{"ForwardedFromAnUntrustedPeer", direct, map[string]string{"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"}, "http://recur.test:8080"},
		{"ForwardedByATrustedProxy", proxied, map[string]string{"X-Forwarded-Host": "journal.example.com, inner.example", "X-Forwarded-Proto": "https"}, "https://journal.example.com"},
		{"TrustedProxyWithoutForwardedHost", proxied, map[string]string{"X-Forwarded-Proto": "https"}, "https://recur.test:8080"},
		{"ForwardedHostThatIsNotAHost", proxied, map[string]string{"X-Forwarded-Host": "evil.example/path?", "X-Forwarded-Proto": "gopher"}, "http://recur.test:8080"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range 2 {
				if res := c.h.do("POST", "/api/captures", c.h.tokenA, map[string]string{"text": "A walk by the river."}); res.Status != 201 {
					t.Fatalf("create: %d %s", res.Status, res.Body)
				}
			}
			req := sentBy(c.h.request("GET", "/api/captures?limit=1", nil), t)
			req.Host = "recur.test:8080"
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			res := c.h.send(req, c.h.tokenA)
			if res.Status != 200 {
				t.Fatalf("list: %d %s", res.Status, res.Body)
			}
			links := res.JSON(t)["links"].(map[string]any)
			if got, want := links["next"], c.want+"/api/captures?limit=1&page=2"; got != want {
				t.Errorf("next = %v, want %s", got, want)
			}
			if got, want := res.JSON(t)["meta"].(map[string]any)["path"], c.want+"/api/captures"; got != want {
				t.Errorf("meta.path = %v, want %s", got, want)
			}
		})
	}
}

// A mailed link is made from base_url alone, whatever Host the request
// that asked for it carried.
func TestMailedLinksUseBaseURL(t *testing.T) {
	const base = "https://journal.example.com"
	h, mb := accountsHarness(t, func(o *server.Options) { o.BaseURL = base })
	t.Run("SignInLink", func(t *testing.T) {
		req, _ := http.NewRequest("POST", h.srv.URL+"/api/magic-links/mails", strings.NewReader(`{"email":"alice@example.com"}`))
		req.Host = "evil.example"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base) // this app's page, so the mail carries a link
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 204 {
			t.Fatalf("mails: %d", res.StatusCode)
		}
		if m := mb.next(t); !strings.Contains(m.Text, base+"/api/magic-links/login?") || strings.Contains(m.Text, "evil.example") {
			t.Fatalf("the mailed link is not on %s:\n%s", base, m.Text)
		}
	})
	t.Run("VerificationLink", func(t *testing.T) {
		req := sentBy(h.request("POST", "/api/email/verification-notification", nil), t)
		req.Host = "evil.example"
		if res := h.send(req, h.tokenA); res.Status != 200 {
			t.Fatalf("verification: %d %s", res.Status, res.Body)
		}
		if m := mb.next(t); !strings.Contains(m.Text, base+"/api/email/verify?") || strings.Contains(m.Text, "evil.example") {
			t.Fatalf("the mailed link is not on %s:\n%s", base, m.Text)
		}
	})
}

// Without base_url no link is mailed: a sign-in mail that would carry one
// carries a code, a verification mail is refused with a sentence, and the
// log says why and what to set.
func TestWithoutBaseURLNoLinkIsMailed(t *testing.T) {
	var out syncBuffer
	h, mb := accountsHarness(t, func(o *server.Options) {
		o.BaseURL = ""
		o.Logger = slog.New(slog.NewTextHandler(&out, nil))
	})
	// The sign-in page's form, which asks for a link.
	res, err := http.PostForm(h.srv.URL+"/sign-in", url.Values{"email": {"alice@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("sign-in form: %d", res.StatusCode)
	}
	m := mb.next(t)
	if strings.Contains(m.Text, "http") {
		t.Errorf("the sign-in mail carries a link:\n%s", m.Text)
	}
	codeIn(t, m)
	if line := waitLogLine(t, &out, "sign-in link not mailed"); !strings.Contains(line, "base_url") {
		t.Errorf("the log line %q does not name base_url", line)
	}

	verify := h.do("POST", "/api/email/verification-notification", h.tokenA, nil)
	if verify.Status != 503 || !strings.Contains(string(verify.Body), "base_url") {
		t.Errorf("verification: %d %s, want 503 naming base_url", verify.Status, verify.Body)
	}
	if line := waitLogLine(t, &out, "verification mail not sent"); !strings.Contains(line, "RECUR_SERVER_BASE_URL") {
		t.Errorf("the log line %q does not say how to set base_url", line)
	}
}
