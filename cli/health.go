package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"
)

const healthAbout = `Ask the running server whether it is healthy, as a container's health check does:
GET /api/health-check on the address recur serve listens on ([server] addr, with
0.0.0.0 or :: asked on the loopback address). It prints the status and exits 0
when the server answers 200 (ok, or degraded while Ollama is away: entries are
still kept), 1 otherwise. It needs no database and writes nothing.`

// healthTimeout bounds the whole health request: a check that hangs is a
// failed check.
const healthTimeout = 5 * time.Second

func (m *Main) parseHealth(args []string) error {
	var url string
	return m.parse("health [--url URL]", healthAbout, args, 0, 0,
		func(fs *flag.FlagSet) {
			fs.StringVar(&url, "url", "", "the health check's `URL` (default: made from [server] addr)")
		},
		func([]string) { m.command = func(ctx context.Context) error { return m.health(ctx, url) } })
}

// health asks the server at url, or at the configured address, for its
// health and prints the status.
func (m *Main) health(ctx context.Context, url string) error {
	if url == "" {
		if err := m.loadConfig(); err != nil {
			return err
		}
		url = localHealthURL(m.Config.Server.Addr)
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	// Straight to the server: a proxy from the environment must not answer for it.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("health: the server does not answer: %w", err)
	}
	defer res.Body.Close()
	var body struct {
		Data struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || body.Data.Status == "" {
		return fmt.Errorf("health: %s answered %d without a health report; is Recur listening there?", url, res.StatusCode)
	}
	fmt.Fprintln(m.Stdout, body.Data.Status)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s (%d)", body.Data.Status, res.StatusCode)
	}
	return nil
}

// localHealthURL is the health check of a server listening on addr, asked
// on the loopback address when it listens on every address.
func localHealthURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil { // Validate has checked it
		host, port = "127.0.0.1", "8080"
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/api/health-check"
}
