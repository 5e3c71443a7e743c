// Package apitest calls a running Recur's API in tests, as a script with a
// bearer token does.
package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/wait"
)

// Client calls the API at Base with the bearer token Token.
type Client struct {
	T           testing.TB
	Base, Token string
	HTTP        *http.Client // nil: http.DefaultClient
}

// Do sends a JSON request and decodes the JSON answer.
func (c Client) Do(method, path, body string) (int, map[string]any) {
	c.T.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, c.Base+path, rd)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	json.NewDecoder(res.Body).Decode(&v)
	return res.StatusCode, v
}

// WaitProcessed polls the capture for up to ten seconds until it is
// processed and returns it.
func (c Client) WaitProcessed(id string) map[string]any {
	c.T.Helper()
	var status int
	var data map[string]any
	wait.Eventually(c.T, 10*time.Second, "capture "+id+" processed", func() bool {
		var got map[string]any
		status, got = c.Do("GET", "/captures/"+id, "")
		data, _ = got["data"].(map[string]any)
		return status == 200 && data["status"] == "processed"
	}, func() string { return fmt.Sprintf("GET /captures/%s = %d %v", id, status, data) })
	return data
}

// FreeAddr returns a loopback address with a port nothing listens on, so
// that a server's base_url (used in mailed links) can name it before it
// starts.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
