// Package notifytest is a webhook receiver for tests: a real HTTP server
// on loopback that checks each delivery's signature as a receiver should.
package notifytest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Delivery is one POST the receiver got.
type Delivery struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	CreatedAt string         `json:"created_at"`
	Data      map[string]any `json:"data"`
	Signed    bool           `json:"-"` // the signature matched the secret
	Signature string         `json:"-"`
}

// Receiver records the deliveries it gets, answering each with the next
// status of its script (200 once the script runs out).
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	secret   string
	statuses []int
	got      []Delivery
}

// NewReceiver starts a receiver on loopback until tb ends.
func NewReceiver(tb testing.TB, statuses ...int) *Receiver {
	tb.Helper()
	r := &Receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	tb.Cleanup(r.Close)
	return r
}

// SetSecret is the secret deliveries must be signed with.
func (r *Receiver) SetSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var d Delivery
	if req.Method != http.MethodPost || json.Unmarshal(body, &d) != nil {
		http.Error(w, "want a POST of JSON", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d.Signature = req.Header.Get("Recur-Signature")
	d.Signed = Verify(r.secret, d.Signature, body)
	r.got = append(r.got, d)
	status := http.StatusOK
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	w.WriteHeader(status)
}

// Got returns the deliveries so far.
func (r *Receiver) Got() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// Types lists the types of the deliveries so far, for a failure message.
func (r *Receiver) Types() string {
	var types []string
	for _, d := range r.Got() {
		types = append(types, fmt.Sprintf("%s(signed=%v)", d.Type, d.Signed))
	}
	return strings.Join(types, " ")
}

// Verify checks a Recur-Signature header, t=<unix seconds>,v1=<hex HMAC>,
// against body and secret, as a receiver's own code would.
func Verify(secret, header string, body []byte) bool {
	var t, v1 string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			t = v
		case "v1":
			v1 = v
		}
	}
	if t == "" || v1 == "" || secret == "" {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "." + string(body)))
	want := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(want), []byte(v1))
}
