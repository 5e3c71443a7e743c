package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/recur-journal/recur/pipeline/fakeollama"
)

// Without base_url, a server listening beyond loopback cannot make mailed
// links: doctor fails with the fix and start-up warns in one line. On
// loopback, or with base_url set, both are content.
func TestBaseURLNeededBeyondLoopback(t *testing.T) {
	t.Parallel()
	fake := fakeollama.New(t)
	for _, c := range []struct {
		name string
		env  []string
		want string // doctor's base_url line
		warn bool
	}{
		{"Loopback", []string{"RECUR_SERVER_ADDR=127.0.0.1:8080"}, "ok   base_url: mailed links start with http://127.0.0.1:8080", false},
		{"Set", []string{"RECUR_SERVER_ADDR=0.0.0.0:8080", "RECUR_SERVER_BASE_URL=https://journal.example.com/"}, "ok   base_url: mailed links start with https://journal.example.com", false},
		{"Missing", []string{"RECUR_SERVER_ADDR=0.0.0.0:8080"}, "FAIL base_url: not set, and addr 0.0.0.0:8080 is not a loopback address", true},
		{"MissingAllInterfaces", []string{"RECUR_SERVER_ADDR=:8080"}, "FAIL base_url: not set, and addr :8080 is not a loopback address", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := NewMain()
			var out bytes.Buffer
			m.Stdout, m.Stderr = &out, io.Discard
			m.Env = append([]string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_OLLAMA_URL=" + fake.URL()}, c.env...)
			if err := m.ParseFlags([]string{"doctor"}); err != nil {
				t.Fatal(err)
			}
			err := m.Run(context.Background())
			m.Close()
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("doctor said:\n%s\nwant a line starting %q", out.String(), c.want)
			}
			if c.warn && (err == nil || !strings.Contains(out.String(), "RECUR_SERVER_BASE_URL")) {
				t.Errorf("doctor: %v, saying:\n%s\nwant a failure that names RECUR_SERVER_BASE_URL", err, out.String())
			}

			var log bytes.Buffer
			m.Logger = slog.New(slog.NewTextHandler(&log, nil))
			m.warnBaseURL()
			lines := strings.Count(log.String(), "\n")
			if c.warn && (lines != 1 || !strings.Contains(log.String(), "base_url")) {
				t.Errorf("start-up logged:\n%s\nwant one line about base_url", log.String())
			}
			if !c.warn && lines != 0 {
				t.Errorf("start-up logged:\n%s\nwant nothing", log.String())
			}
		})
	}
}

// The start-up line names an address a browser on this machine opens: a
// listener on every address is reached at 127.0.0.1, not at [::].
func TestLocalURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 10), Port: 8080}, "http://192.168.1.10:8080"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "http://[::1]:8080"},
	} {
		if got := localURL(c.addr); got != c.want {
			t.Errorf("localURL(%s) = %q, want %q", c.addr, got, c.want)
		}
	}
}
