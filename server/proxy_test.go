package server_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/recur-journal/recur/server"
)

// syncBuffer is a log destination the server's goroutines may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// mailFrom asks for a sign-in mail for a fresh address, claiming to come
// from forwardedFor, and returns the status.
func mailFrom(h *harness, i int, forwardedFor string) response {
	h.t.Helper()
	body := fmt.Sprintf(`{"email":"someone%d@example.com"}`, i)
	req, err := http.NewRequest("POST", h.srv.URL+"/api/magic-links/mails", strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	return h.send(req, "")
}

func TestTrustedProxies(t *testing.T) {
	// The per-IP limit on sign-in mail allows 10 a minute; each request
	// below names a new address, so only the per-IP limit can bite.
	const tries = 15
	t.Run("SpoofFromUntrustedPeerIgnored", func(t *testing.T) {
		logs := &syncBuffer{}
		h := newHarness(t, func(o *server.Options) {
			o.Logger = slog.New(slog.NewTextHandler(logs, nil))
			// A proxy elsewhere is trusted; the test's loopback peer is not.
			o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
		})
		limited := 0
		for i := range tries {
			if mailFrom(h, i, fmt.Sprintf("198.51.100.%d", i+1)).Status == http.StatusTooManyRequests {
				limited++
			}
		}
		if limited == 0 {
			t.Fatalf("%d requests each with a new X-Forwarded-For from an untrusted peer were never limited", tries)
		}
		if strings.Contains(logs.String(), "remote=198.51.100.") {
			t.Error("the access log names a forwarded address from an untrusted peer")
		}
	})
	t.Run("TrustedProxyForwardsClient", func(t *testing.T) {
		logs := &syncBuffer{}
		h := newHarness(t, func(o *server.Options) {
			o.Logger = slog.New(slog.NewTextHandler(logs, nil))
			o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
		})
		for i := range tries {
			// A chain: the client's claim, the client as the proxy saw it.
			if res := mailFrom(h, i, fmt.Sprintf("1.1.1.1, 198.51.100.%d", i+1)); res.Status != http.StatusNoContent {
				t.Fatalf("request %d from client 198.51.100.%d: status %d, want 204 (each client has its own limit)\n%s", i, i+1, res.Status, res.Body)
			}
		}
		if !strings.Contains(logs.String(), "remote=198.51.100.3 ") {
			t.Errorf("the access log does not name the forwarded client:\n%s", logs.String())
		}
		limited := false
		for i := range tries {
			if mailFrom(h, 100+i, "1.1.1.1, 203.0.113.9").Status == http.StatusTooManyRequests {
				limited = true
				break
			}
		}
		if !limited {
			t.Error("one client behind the proxy was never limited, whatever it wrote to the left of the chain")
		}
	})
}
