package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// bearer answers the status of GET /api/users/me with token.
func (h *harness) bearer(token string) int {
	req, _ := http.NewRequest("GET", h.srv.URL+"/api/users/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return h.anonymous().send(req).status
}

// Changing the password on the security page keeps this browser signed in,
// signs out every other browser of the account and revokes its tokens but
// its apps', says so, and leaves other accounts alone.
func TestPasswordChangeEndsOtherSessionsAndTokens(t *testing.T) {
	h := newHarness(t, nil)
	b := h.signIn(h.alice)
	other := h.signIn(h.alice)
	bob := h.signIn(h.bob)
	token := storetest.MustCreateToken(t, h.store, h.alice.ID)
	bobToken := storetest.MustCreateToken(t, h.store, h.bob.ID)
	req, _ := http.NewRequest("POST", h.srv.URL+"/api/apps", strings.NewReader(`{"name":"Shortcuts","scopes":["*"]}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	created := h.anonymous().send(req)
	var app struct{ Data struct{ Token string } }
	if err := json.Unmarshal([]byte(created.body), &app); err != nil || app.Data.Token == "" {
		t.Fatalf("app: %d %s", created.status, created.body)
	}

	mustHave(t, b.post("/settings/security/confirm/code", nil), http.StatusSeeOther)
	if got := b.post("/settings/security/confirm", url.Values{"code": {h.mail.next(t).Code}}); got.status != http.StatusSeeOther {
		t.Fatalf("confirming answered %d", got.status)
	}
	got := b.post("/settings/security/password", url.Values{"password": {"a new password"}, "password_confirmation": {"a new password"}})
	if got.status != http.StatusSeeOther {
		t.Fatalf("setting the password answered %d: %.300s", got.status, got.body)
	}
	mustHave(t, b.get(got.location), 200, "Every other browser is signed out, and every token but your apps&#39; is revoked.")
	mustHave(t, b.get("/"), 200, `data-testid="write"`)
	mustHave(t, other.get("/"), 200, `action="/sign-in"`)
	if status := h.bearer(token); status != http.StatusUnauthorized {
		t.Errorf("a token of the account answers %d after the change, want 401", status)
	}
	if status := h.bearer(app.Data.Token); status != http.StatusOK {
		t.Errorf("the app's token answers %d after the change, want 200", status)
	}
	mustHave(t, bob.get("/"), 200, `data-testid="write"`)
	if status := h.bearer(bobToken); status != http.StatusOK {
		t.Errorf("another account's token answers %d", status)
	}
}
