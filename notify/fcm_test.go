package notify_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// fcmService plays Google's token endpoint and FCM's HTTP v1 API: it
// checks the service account's signed JWT, hands out an access token, and
// keeps each message sent with it; "gone-token" is unknown to it.
type fcmService struct {
	*httptest.Server
	key *rsa.PublicKey

	mu       sync.Mutex
	grants   int
	sent     []map[string]any
	problems []string
}

func newFCMService(t *testing.T, key *rsa.PublicKey) *fcmService {
	f := &fcmService{key: key}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fcmService) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case "/token":
		r.ParseForm()
		if r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
			f.problems = append(f.problems, "grant_type "+r.PostForm.Get("grant_type"))
		}
		parts := strings.Split(r.PostForm.Get("assertion"), ".")
		if len(parts) != 3 {
			f.problems = append(f.problems, "the assertion is not a JWT")
			w.WriteHeader(400)
			return
		}
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if err := rsa.VerifyPKCS1v15(f.key, crypto.SHA256, digest[:], sig); err != nil {
			f.problems = append(f.problems, "the JWT does not verify: "+err.Error())
		}
		var claims map[string]any
		cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
		json.Unmarshal(cb, &claims)
		if claims["iss"] != "recur@project.iam.gserviceaccount.com" || claims["aud"] != f.URL+"/token" ||
			claims["scope"] != "https://www.googleapis.com/auth/firebase.messaging" {
			f.problems = append(f.problems, "claims: "+string(cb))
		}
		f.grants++
		io.WriteString(w, `{"access_token":"ya29.granted","expires_in":3599,"token_type":"Bearer"}`)
	case "/v1/projects/recur-app/messages:send":
		if r.Header.Get("Authorization") != "Bearer ya29.granted" {
			f.problems = append(f.problems, "Authorization "+r.Header.Get("Authorization"))
		}
		var body struct{ Message map[string]any }
		json.NewDecoder(r.Body).Decode(&body)
		if body.Message["token"] == "gone-token" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}`)
			return
		}
		f.sent = append(f.sent, body.Message)
		io.WriteString(w, `{"name":"projects/recur-app/messages/1"}`)
	default:
		http.NotFound(w, r)
	}
}

// When the owner sets a service account's key, an event reaches each of
// the user's registered push tokens through FCM's HTTP v1 API, with an
// access token got by a JWT the service account signed; a token FCM no
// longer knows is removed. Without the key the tokens are only kept.
func TestFCMSendsToPushTokens(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	svc := newFCMService(t, &key.PublicKey)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	creds, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "recur-app", "client_email": "recur@project.iam.gserviceaccount.com",
		"token_uri": svc.URL + "/token", "private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))})
	dir := t.TempDir()
	path := filepath.Join(dir, "fcm.json")
	os.WriteFile(path, creds, 0o600)
	fcm, err := notify.LoadFCM(path, svc.URL)
	if err != nil {
		t.Fatal(err)
	}

	clock := storetest.NewClock(t)
	s := storetest.MustOpenAt(t, filepath.Join(dir, "recur.db"), clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	ctx := context.Background()
	for _, tok := range []string{"phone-token", "gone-token"} {
		if err := s.SavePushToken(ctx, &store.PushToken{UserID: u.ID, Token: tok, Platform: "android"}); err != nil {
			t.Fatal(err)
		}
	}

	without := notify.New(notify.Options{Store: s, Logger: quiet(), Now: clock.Now})
	without.Emit(ctx, u.ID, notify.PatternUrgent, notify.PatternData{ID: "p-0", Name: "kept only"})
	if _, total, _ := s.ListChannels(ctx, u.ID, nil, store.Page{Page: 1, Limit: 10}); total != 0 {
		t.Fatalf("without FCM the tokens got a channel")
	}

	n := notify.New(notify.Options{Store: s, Logger: quiet(), Now: clock.Now, FCM: fcm})
	n.Emit(ctx, u.ID, notify.PatternUrgent, notify.PatternData{ID: "p-1", Name: "skipping meals", Urgent: true})
	n.Emit(ctx, u.ID, notify.ReviewReady, map[string]string{"week": "2026-W48", "path": "/review/2026-W48"})
	if _, err := n.Work(ctx); err != nil {
		t.Fatal(err)
	}
	svc.mu.Lock()
	sent, problems, grants := svc.sent, svc.problems, svc.grants
	svc.mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("the FCM service found: %v", problems)
	}
	if len(sent) != 2 || grants != 1 {
		t.Fatalf("sent %d messages with %d access tokens, want 2 with 1: %v", len(sent), grants, sent)
	}
	note, _ := sent[0]["notification"].(map[string]any)
	data, _ := sent[0]["data"].(map[string]any)
	android, _ := sent[0]["android"].(map[string]any)
	if sent[0]["token"] != "phone-token" || note["title"] != "Urgent: skipping meals" || data["url"] != "/patterns/p-1" || android["priority"] != "high" {
		t.Errorf("the urgent pattern's message = %v", sent[0])
	}
	if data, _ := sent[1]["data"].(map[string]any); data["url"] != "/review/2026-W48" {
		t.Errorf("the review's message = %v", sent[1])
	}
	tokens, _ := s.PushTokens(ctx, u.ID)
	if len(tokens) != 1 || tokens[0].Token != "phone-token" {
		t.Errorf("tokens left = %+v, want phone-token alone", tokens)
	}
}
