package notify_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/hkdf"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// pushService plays a browser's push service: it holds the subscription's
// private key and auth secret, decrypts each message (RFC 8291) and checks
// its VAPID signature (RFC 8292) against the server's public key.
type pushService struct {
	*httptest.Server
	t      *testing.T
	key    *ecdh.PrivateKey
	auth   []byte
	status int

	mu       sync.Mutex
	vapidKey string // the server's public key, base64url, to check against
	got      []notify.PushMessage
	problems []string
}

func newPushService(t *testing.T, status int) *pushService {
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p := &pushService{t: t, key: key, auth: make([]byte, 16), status: status}
	rand.Read(p.auth)
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *pushService) subscription() notify.PushSubscription {
	enc := base64.RawURLEncoding.EncodeToString
	return notify.PushSubscription{Endpoint: p.URL + "/push/device-1", P256dh: enc(p.key.PublicKey().Bytes()), Auth: enc(p.auth)}
}

func (p *pushService) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8192))
	p.mu.Lock()
	defer p.mu.Unlock()
	fail := func(what string) { p.problems = append(p.problems, what) }
	if r.Header.Get("Content-Encoding") != "aes128gcm" {
		fail("Content-Encoding is " + r.Header.Get("Content-Encoding"))
	}
	if r.Header.Get("TTL") == "" {
		fail("no TTL header")
	}
	if err := p.checkVAPID(r.Header.Get("Authorization")); err != "" {
		fail(err)
	}
	plain, err := p.decrypt(body)
	if err != "" {
		fail(err)
	} else {
		var m notify.PushMessage
		if err := json.Unmarshal(plain, &m); err != nil {
			fail("payload is not JSON: " + string(plain))
		}
		p.got = append(p.got, m)
	}
	w.WriteHeader(p.status)
}

// decrypt opens a single-record aes128gcm body: salt, record size, the
// sender's public key, then the sealed record.
func (p *pushService) decrypt(body []byte) ([]byte, string) {
	if len(body) < 21 {
		return nil, "body too short for its header"
	}
	salt, rs, idLen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idLen != 65 || len(body) < 21+idLen {
		return nil, "key id is not a P-256 public key"
	}
	senderBytes, record := body[21:21+idLen], body[21+idLen:]
	if uint32(len(record)) > rs {
		return nil, "record longer than the record size"
	}
	sender, err := ecdh.P256().NewPublicKey(senderBytes)
	if err != nil {
		return nil, "sender key: " + err.Error()
	}
	shared, err := p.key.ECDH(sender)
	if err != nil {
		return nil, err.Error()
	}
	expand := func(secret, salt, info []byte, n int) []byte {
		out := make([]byte, n)
		io.ReadFull(hkdf.New(sha256.New, secret, salt, info), out)
		return out
	}
	keyInfo := append(append([]byte("WebPush: info\x00"), p.key.PublicKey().Bytes()...), senderBytes...)
	ikm := expand(shared, p.auth, keyInfo, 32)
	cek := expand(ikm, salt, []byte("Content-Encoding: aes128gcm\x00"), 16)
	nonce := expand(ikm, salt, []byte("Content-Encoding: nonce\x00"), 12)
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, record, nil)
	if err != nil {
		return nil, "decrypt: " + err.Error()
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		return nil, "the last record does not end in the delimiter 2"
	}
	return plain[:len(plain)-1], ""
}

// checkVAPID checks "vapid t=<JWT>, k=<key>": k is the server's key and
// signs the JWT (ES256), whose audience is the push service's origin.
func (p *pushService) checkVAPID(h string) string {
	var jwt, k string
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return "Authorization is not vapid: " + h
	}
	for _, part := range strings.Split(rest, ",") {
		part = strings.TrimSpace(part)
		if v, ok := strings.CutPrefix(part, "t="); ok {
			jwt = v
		} else if v, ok := strings.CutPrefix(part, "k="); ok {
			k = v
		}
	}
	if k != p.vapidKey {
		return "k is " + k + ", not the server's public key " + p.vapidKey
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "t is not a JWT"
	}
	pub, err := base64.RawURLEncoding.DecodeString(k)
	if err != nil {
		return "k is not base64url"
	}
	key, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pub)
	if err != nil {
		return "k: " + err.Error()
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return "the JWT signature is not 64 bytes of r and s"
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(key, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "the JWT's signature does not verify with the server's public key"
	}
	var head struct{ Alg string }
	var claims struct {
		Aud string
		Exp int64
		Sub string
	}
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	json.Unmarshal(hb, &head)
	json.Unmarshal(cb, &claims)
	if head.Alg != "ES256" || claims.Aud != p.URL || claims.Exp == 0 || claims.Sub != "mailto:owner@example.com" {
		return "JWT header or claims wrong: " + string(hb) + " " + string(cb)
	}
	return ""
}

func (p *pushService) messages() ([]notify.PushMessage, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]notify.PushMessage(nil), p.got...), append([]string(nil), p.problems...)
}

func pushNotifier(t *testing.T, allowPrivate bool) (*notify.Notifier, *store.Store, *store.User, string) {
	t.Helper()
	clock := storetest.NewClock(t)
	dir := t.TempDir()
	s := storetest.MustOpenAt(t, filepath.Join(dir, "recur.db"), clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	n := notify.New(notify.Options{Store: s, Logger: quiet(), AllowPrivateTargets: allowPrivate, Now: clock.Now,
		DataDir: dir, PushSubject: "owner@example.com"})
	return n, s, u, dir
}

// A pattern event reaches a subscribed browser through its push service
// encrypted for that browser alone and signed with the server's VAPID
// key, which is made on first use, for its owner alone, and kept.
func TestWebPushDeliversEncryptedSignedMessage(t *testing.T) {
	n, s, u, dir := pushNotifier(t, true)
	ctx := context.Background()
	svc := newPushService(t, http.StatusCreated)

	pub, err := n.VAPIDPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	svc.vapidKey = pub
	fi, err := os.Stat(filepath.Join(dir, notify.VAPIDFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode().Perm(), os.FileMode(0o600); got != want {
		t.Errorf("%s mode = %v, want %v", notify.VAPIDFile, got, want)
	}
	again := notify.New(notify.Options{Store: s, Logger: quiet(), DataDir: dir})
	if k, err := again.VAPIDPublicKey(); err != nil || k != pub {
		t.Errorf("a second notifier's key = %q, %v; want the kept %q", k, err, pub)
	}

	// Another account subscribed on this browser before; the endpoint
	// now reaches alice alone.
	bob := storetest.MustCreateUser(t, s, "bob@example.com")
	if _, err := n.Subscribe(ctx, bob.ID, svc.subscription(), nil); err != nil {
		t.Fatal(err)
	}
	c, err := n.Subscribe(ctx, u.ID, svc.subscription(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if list, total, _ := s.ListChannels(ctx, bob.ID, nil, store.Page{Page: 1, Limit: 10}); total != 0 {
		t.Errorf("bob still holds the endpoint: %+v", list)
	}
	n.Emit(ctx, bob.ID, notify.PatternDetected, notify.PatternData{ID: "p-bob", Name: "bob's pattern"})
	n.Emit(ctx, u.ID, notify.PatternDetected, notify.PatternData{ID: "p-1", Name: "work stress", State: "open"})
	n.Emit(ctx, u.ID, notify.CaptureProcessed, notify.CaptureData{ID: "c-1"}) // not among the default events
	if _, err := n.Work(ctx); err != nil {
		t.Fatal(err)
	}
	got, problems := svc.messages()
	if len(problems) > 0 {
		t.Fatalf("the push service found: %v", problems)
	}
	if len(got) != 1 {
		t.Fatalf("the push service got %d messages, want 1: %+v", len(got), got)
	}
	if m := got[0]; m.Type != notify.PatternDetected || m.URL != "/patterns/p-1" || !strings.Contains(m.Title, "work stress") {
		t.Errorf("message = %+v, want pattern.detected about work stress opening /patterns/p-1", m)
	}
	if d := deliveries(t, s, u, c); len(d) != 1 || d[0].State != store.DeliveryDelivered {
		t.Errorf("deliveries = %+v, want one delivered", d)
	}
}

// A push service that says the subscription is gone (410) has it removed.
func TestWebPushRemovesGoneSubscription(t *testing.T) {
	n, s, u, _ := pushNotifier(t, true)
	ctx := context.Background()
	svc := newPushService(t, http.StatusGone)
	svc.vapidKey, _ = n.VAPIDPublicKey()
	c, err := n.Subscribe(ctx, u.ID, svc.subscription(), []string{notify.ReviewReady})
	if err != nil {
		t.Fatal(err)
	}
	n.Emit(ctx, u.ID, notify.ReviewReady, map[string]string{"week": "2026-W48", "path": "/review/2026-W48"})
	if _, err := n.Work(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.messages(); len(got) != 1 || got[0].URL != "/review/2026-W48" {
		t.Errorf("messages = %+v, want one opening /review/2026-W48", got)
	}
	if _, err := s.FindChannel(ctx, u.ID, c.ID); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("the gone subscription is still there: %v", err)
	}
}

// A subscription is refused, naming the field, when its endpoint is on
// the machine's own network (unless the owner allows private targets) or
// its keys are not what a browser gives.
func TestWebPushSubscribeRefuses(t *testing.T) {
	n, _, u, _ := pushNotifier(t, false)
	svc := newPushService(t, http.StatusCreated)
	good := svc.subscription()
	for _, tc := range []struct {
		name, field string
		edit        func(*notify.PushSubscription)
	}{
		{"Loopback", "endpoint", func(p *notify.PushSubscription) {}},
		{"NotHTTP", "endpoint", func(p *notify.PushSubscription) { p.Endpoint = "ftp://push.example.com/x" }},
		{"ShortKey", "p256dh", func(p *notify.PushSubscription) { p.Endpoint = "https://93.184.215.14/x"; p.P256dh = "BAAA" }},
		{"ShortAuth", "auth", func(p *notify.PushSubscription) { p.Endpoint = "https://93.184.215.14/x"; p.Auth = "AAAA" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := good
			tc.edit(&sub)
			_, err := n.Subscribe(context.Background(), u.ID, sub, nil)
			var e *store.Error
			if !errors.As(err, &e) || e.Code != store.EINVALID || e.Field != tc.field {
				t.Errorf("Subscribe = %v, want EINVALID naming %s", err, tc.field)
			}
		})
	}
}

// Push subscriptions count among the account's channels: with ten held,
// another endpoint is refused, naming the endpoint.
func TestWebPushSharesTheChannelLimit(t *testing.T) {
	n, _, u, _ := pushNotifier(t, false)
	sub := newPushService(t, http.StatusCreated).subscription()
	for i := range notify.MaxChannels {
		sub.Endpoint = fmt.Sprintf("https://93.184.215.14/push/%d", i)
		if _, err := n.Subscribe(context.Background(), u.ID, sub, nil); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	sub.Endpoint = "https://93.184.215.14/push/one-more"
	_, err := n.Subscribe(context.Background(), u.ID, sub, nil)
	var e *store.Error
	if !errors.As(err, &e) || e.Field != "endpoint" || !strings.Contains(e.Message, "at most 10") {
		t.Errorf("the eleventh = %v, want EINVALID naming endpoint and the limit", err)
	}
}
