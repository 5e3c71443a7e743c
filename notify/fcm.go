package notify

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/recur-journal/recur/store"
)

// fcmScope is the OAuth scope of Firebase Cloud Messaging's HTTP v1 API.
const fcmScope = "https://www.googleapis.com/auth/firebase.messaging"

// DefaultFCMURL is where FCM's HTTP v1 API is served.
const DefaultFCMURL = "https://fcm.googleapis.com"

// FCM sends to the mobile app's push tokens through Firebase Cloud
// Messaging's HTTP v1 API, signed in as a Google service account.
type FCM struct {
	email, project, tokenURI string
	key                      *rsa.PrivateKey
	base                     string
	client                   *http.Client

	mu      sync.Mutex
	access  string
	expires time.Time
}

// LoadFCM reads a service account's JSON key (as the Firebase console
// downloads it) from path, to send through the FCM API at base (empty:
// DefaultFCMURL).
func LoadFCM(path, base string) (*FCM, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sa struct {
		ProjectID   string `json:"project_id"`
		PrivateKey  string `json:"private_key"`
		ClientEmail string `json:"client_email"`
		TokenURI    string `json:"token_uri"`
	}
	if err := json.Unmarshal(b, &sa); err != nil {
		return nil, fmt.Errorf("%s is not a service account's JSON key: %w", path, err)
	}
	block, _ := pem.Decode([]byte(sa.PrivateKey))
	if block == nil || sa.ProjectID == "" || sa.ClientEmail == "" || sa.TokenURI == "" {
		return nil, fmt.Errorf("%s lacks project_id, client_email, token_uri or a PEM private_key", path)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	key, ok := parsed.(*rsa.PrivateKey)
	if err != nil || !ok {
		return nil, fmt.Errorf("%s: private_key is not an RSA key in PKCS #8", path)
	}
	if base == "" {
		base = DefaultFCMURL
	}
	return &FCM{email: sa.ClientEmail, project: sa.ProjectID, tokenURI: sa.TokenURI, key: key, base: strings.TrimRight(base, "/"),
		client: &http.Client{Timeout: defaultDeliveryTimeout}}, nil
}

// token returns an access token, asking the token URI for a new one with a
// signed JWT (RFC 7523) when the last is about to expire.
func (f *FCM) token(ctx context.Context, now time.Time) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.access != "" && now.Before(f.expires) {
		return f.access, nil
	}
	enc := base64.RawURLEncoding.EncodeToString
	head, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": f.email, "scope": fcmScope, "aud": f.tokenURI, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	signing := enc(head) + "." + enc(claims)
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, f.key, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {signing + "." + enc(sig)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.tokenURI, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := f.client.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxResponseBytes)).Decode(&out); err != nil || res.StatusCode != http.StatusOK || out.AccessToken == "" {
		return "", fmt.Errorf("the service account's token was refused (%s)", res.Status)
	}
	f.access, f.expires = out.AccessToken, now.Add(time.Duration(out.ExpiresIn)*time.Second-time.Minute)
	return f.access, nil
}

// errTokenGone is a push token FCM no longer knows.
var errTokenGone = errors.New("the push token is no longer registered")

// send sends msg to one push token.
func (f *FCM) send(ctx context.Context, now time.Time, token string, msg PushMessage, urgent bool) (int, error) {
	access, err := f.token(ctx, now)
	if err != nil {
		return 0, err
	}
	priority := "normal"
	if urgent {
		priority = "high"
	}
	body, _ := json.Marshal(map[string]any{"message": map[string]any{
		"token":        token,
		"notification": map[string]string{"title": msg.Title, "body": msg.Body},
		"data":         map[string]string{"type": msg.Type, "url": msg.URL},
		"android":      map[string]string{"priority": priority},
	}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.base+"/v1/projects/"+url.PathEscape(f.project)+"/messages:send", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+access)
	req.Header.Set("Content-Type", "application/json")
	res, err := f.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	switch {
	case res.StatusCode == http.StatusNotFound || bytes.Contains(answer, []byte("UNREGISTERED")):
		return res.StatusCode, errTokenGone
	case res.StatusCode < 200 || res.StatusCode > 299:
		return res.StatusCode, fmt.Errorf("FCM answered %s", res.Status)
	}
	return res.StatusCode, nil
}

// ensureFCMChannel gives a user who registered push tokens the channel
// through which events reach them, when FCM is set up.
func (n *Notifier) ensureFCMChannel(ctx context.Context, userID string) {
	if n.opts.FCM == nil {
		return
	}
	tokens, err := n.opts.Store.PushTokens(ctx, userID)
	if err != nil || len(tokens) == 0 {
		return
	}
	if _, total, err := n.opts.Store.ListChannels(ctx, userID, []string{store.ChannelFCM}, store.Page{Page: 1, Limit: 1}); err != nil || total > 0 {
		return
	}
	// One beyond the account's limit: this channel is Recur's, not one the user added.
	c := &store.Channel{UserID: userID, Kind: store.ChannelFCM, Events: DefaultPushEvents}
	if err := n.opts.Store.CreateChannel(ctx, c, MaxChannels+1); err != nil {
		n.opts.Logger.Warn("add the push tokens' channel", "user_id", userID, "error", err)
	}
}

// sendFCM sends the event of d to each of its user's push tokens: it is
// delivered when one of them takes it. Tokens FCM no longer knows are
// removed, and the channel too once none is left.
func (n *Notifier) sendFCM(ctx context.Context, d *store.Delivery, msg PushMessage, urgent bool) (int, error) {
	if n.opts.FCM == nil {
		return 0, errors.New("FCM is not set up on this server ([push] fcm_credentials_file)")
	}
	tokens, err := n.opts.Store.PushTokens(ctx, d.UserID)
	if err != nil {
		return 0, err
	}
	status, last, sent, gone := 0, errors.New("no push tokens are registered"), 0, 0
	for _, t := range tokens {
		s, err := n.opts.FCM.send(ctx, n.opts.Now(), t.Token, msg, urgent)
		status = s
		switch {
		case errors.Is(err, errTokenGone):
			gone++
			if err := n.opts.Store.DeletePushToken(context.WithoutCancel(ctx), d.UserID, t.Token); err != nil {
				n.opts.Logger.Warn("remove a push token FCM no longer knows", "user_id", d.UserID, "error", err)
			}
		case err != nil:
			last = err
		default:
			sent++
		}
	}
	if gone == len(tokens) {
		n.opts.Store.DeleteChannel(context.WithoutCancel(ctx), d.UserID, []string{store.ChannelFCM}, d.ChannelID)
	}
	if sent > 0 {
		return status, nil
	}
	return status, last
}
