package server_test

import (
	"strings"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// TestMetricsScopeIsTheOwners: metrics:read is never granted over the API.
// Registering or changing an app to carry it is refused with 422 under
// scopes, whoever asks: a session, a token with every scope, even a token
// that carries metrics:read itself. Only the owner makes such a token, at
// the command line.
func TestMetricsScopeIsTheOwners(t *testing.T) {
	h, _ := accountsHarness(t)
	b := signedInAlice(t, h)
	metricsToken := storetest.MustCreateToken(t, h.store, h.alice.ID, "metrics:read", "apps:manage")
	res := b.do("POST", "/api/apps", map[string]any{"name": "Reader", "scopes": []string{"captures:read"}})
	if res.Status != 201 {
		t.Fatalf("register an app: %d %s", res.Status, res.Body)
	}
	appID := res.JSON(t)["data"].(map[string]any)["id"].(string)
	refused := func(t *testing.T, res response) {
		t.Helper()
		body := string(res.Body)
		if res.Status != 422 || !strings.Contains(body, `"scopes":["`) || !strings.Contains(body, "recur token create") {
			t.Errorf("status %d %s, want 422 under scopes saying the owner makes it with recur token create", res.Status, body)
		}
	}
	asking := map[string]any{"name": "Prometheus", "scopes": []string{"captures:read", "metrics:read"}}
	t.Run("CreateBySession", func(t *testing.T) { refused(t, b.do("POST", "/api/apps", asking)) })
	t.Run("CreateByEveryScopeToken", func(t *testing.T) { refused(t, h.do("POST", "/api/apps", h.tokenA, asking)) })
	t.Run("CreateByMetricsToken", func(t *testing.T) { refused(t, h.do("POST", "/api/apps", metricsToken, asking)) })
	t.Run("UpdateBySession", func(t *testing.T) {
		refused(t, b.do("PATCH", "/api/apps/"+appID, map[string]any{"scopes": []string{"metrics:read"}}))
	})
	t.Run("EverythingElseStillGranted", func(t *testing.T) {
		if res := b.do("POST", "/api/apps", map[string]any{"name": "All", "scopes": []string{"*"}}); res.Status != 201 {
			t.Errorf("an app with * = %d %s, want 201", res.Status, res.Body)
		}
	})
}

// signedInAlice is a browser signed in as h.alice with a password.
func signedInAlice(t *testing.T, h *harness) *browser {
	t.Helper()
	user := *h.alice
	setPassword(t, h, &user, "correct horse battery")
	b := h.browser()
	if res := b.do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery"}); res.Status != 200 {
		t.Fatalf("login: %d %s", res.Status, res.Body)
	}
	return b
}
