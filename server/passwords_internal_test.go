package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// newTestServer is a Server over a real SQLite file with its workers running.
func newTestServer(t *testing.T) (*Server, *store.Store) {
	t.Helper()
	st := storetest.MustOpen(t)
	s := New(Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: "http://127.0.0.1", Secret: []byte("test secret")})
	s.Start()
	t.Cleanup(s.Stop)
	return s, st
}

// post sends a JSON body to the handler from the loopback address ip.
func post(s *Server, path, ip string, body any) *httptest.ResponseRecorder {
	b, _ := json.Marshal(body)
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = ip + ":40000"
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

func mustUserWithHash(t *testing.T, st *store.Store, email, hash string) *store.User {
	t.Helper()
	u := &store.User{Email: email, PasswordHash: hash}
	if err := st.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPasswordChecksAreBounded(t *testing.T) {
	s, st := newTestServer(t)
	const slots = 2
	s.passwords = newPasswords(slots, 300*time.Millisecond)
	hash, err := store.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	mustUserWithHash(t, st, "carol@example.com", hash)

	t.Run("BusyIs429", func(t *testing.T) {
		for range slots {
			s.passwords.slots <- struct{}{}
		}
		res := post(s, "/api/login", "127.0.0.2", map[string]string{"email": "carol@example.com", "password": "correct horse battery"})
		for range slots {
			<-s.passwords.slots
		}
		if res.Code != 429 || res.Header().Get("Retry-After") == "" || !strings.Contains(res.Body.String(), "busy checking other passwords") {
			t.Fatalf("login with every slot taken: %d Retry-After %q %s", res.Code, res.Header().Get("Retry-After"), res.Body)
		}
	})
	t.Run("Flood", func(t *testing.T) {
		// Distinct addresses from distinct addresses of the loopback net, so
		// that no rate limit steps in before the hashing does.
		const n = 24
		var wg sync.WaitGroup
		codes := make([]int, n)
		retry := make([]string, n)
		for i := range n {
			wg.Go(func() {
				res := post(s, "/api/login", fmt.Sprintf("127.0.1.%d", i+1),
					map[string]string{"email": fmt.Sprintf("guess%d@example.com", i), "password": "not the password"})
				codes[i], retry[i] = res.Code, res.Header().Get("Retry-After")
			})
		}
		wg.Wait()
		for i, c := range codes {
			if c != 422 && !(c == 429 && retry[i] != "") {
				t.Errorf("login %d: %d (Retry-After %q), want 422, or 429 with Retry-After", i, c, retry[i])
			}
		}
		if got := s.passwords.peak.Load(); got > slots || got < 1 {
			t.Fatalf("at most %d hashes ran at once, want between 1 and %d", got, slots)
		}
		if res := post(s, "/api/login", "127.0.0.3", map[string]string{"email": "carol@example.com", "password": "correct horse battery"}); res.Code != 200 {
			t.Fatalf("the right password after the flood: %d %s", res.Code, res.Body)
		}
	})
}

func TestLoginLimitPerIPAcrossAddresses(t *testing.T) {
	s, st := newTestServer(t)
	// The limiter reads the store's clock; stopped, the bucket cannot fill
	// again while a loaded machine hashes the burst's passwords.
	stopped := st.Now()
	s.limiter.now = func() time.Time { return stopped }
	burst := limits["login-ip"].Burst
	for i := range burst {
		if res := post(s, "/api/login", "127.0.0.4", map[string]string{"email": fmt.Sprintf("a%d@example.com", i), "password": "guess"}); res.Code != 422 {
			t.Fatalf("attempt %d: %d %s", i+1, res.Code, res.Body)
		}
	}
	res := post(s, "/api/login", "127.0.0.4", map[string]string{"email": "fresh@example.com", "password": "guess"})
	if res.Code != 429 || res.Header().Get("Retry-After") == "" {
		t.Fatalf("attempt %d from one IP, a fresh address: %d %s, want 429 with Retry-After", burst+1, res.Code, res.Body)
	}
	if res := post(s, "/api/login", "127.0.0.5", map[string]string{"email": "fresh@example.com", "password": "guess"}); res.Code != 422 {
		t.Fatalf("another IP: %d %s", res.Code, res.Body)
	}
}

// A hash made with the earlier parameters still signs in, and is replaced
// by one with the current parameters.
func TestLoginRehashesOlderParameters(t *testing.T) {
	s, st := newTestServer(t)
	u := mustUserWithHash(t, st, "dave@example.com", oldHash("correct horse battery"))
	if res := post(s, "/api/login", "127.0.0.6", map[string]string{"email": "dave@example.com", "password": "correct horse battery"}); res.Code != 200 {
		t.Fatalf("login with an older hash: %d %s", res.Code, res.Body)
	}
	got, err := st.FindUserByID(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := store.CurrentPasswordParams
	current := fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$", p.Memory, p.Time, p.Threads)
	if !strings.HasPrefix(got.PasswordHash, current) {
		t.Fatalf("stored hash %q after sign-in, want the current parameters %q", got.PasswordHash, current)
	}
	if res := post(s, "/api/login", "127.0.0.6", map[string]string{"email": "dave@example.com", "password": "correct horse battery"}); res.Code != 200 {
		t.Fatalf("login with the new hash: %d %s", res.Code, res.Body)
	}
}

// oldHash hashes password the way Recur did before (64 MiB, three passes,
// two lanes).
func oldHash(password string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, 3, 64*1024, 2, 32)
	return fmt.Sprintf("$argon2id$v=19$m=65536,t=3,p=2$%s$%s", base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}
