package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
)

var shownToken = regexp.MustCompile(`id="token" class="mono" value="([^"]+)"`)

// apiGet sends GET path to the API with a bearer token and returns the status.
func (h *harness) apiGet(token, path string) int {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestApps(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)
	ctx := context.Background()

	t.Run("ListOffersDefaultScope", func(t *testing.T) {
		a := alice.get("/settings/apps")
		has(t, "GET /settings/apps", a, 200, "No apps yet", `value="captures:write" checked`, `value="*"`)
		if strings.Contains(a.body, `value="captures:read" checked`) {
			t.Error("captures:read is ticked for a new app; only captures:write should be")
		}
	})

	var appID, token string
	t.Run("CreateShowsTokenOnce", func(t *testing.T) {
		a := alice.post("/settings/apps", url.Values{"name": {"Phone shortcut"}, "scopes": {"captures:write"}})
		has(t, "POST /settings/apps", a, 201, "Phone shortcut is ready", `data-copy="#token"`)
		m := shownToken.FindStringSubmatch(a.body)
		if m == nil {
			t.Fatal("no token on the page")
		}
		token = html.UnescapeString(m[1])
		if got := h.apiGet(token, "/api/captures"); got != http.StatusForbidden {
			t.Errorf("the app's token reads captures: %d, want 403 (it only writes)", got)
		}
		list, _, _ := h.store.ListApps(ctx, h.alice.ID, store.Page{Page: 1, Limit: 10})
		if len(list) != 1 || !slices.Equal(list[0].Scopes, []string{"captures:write"}) {
			t.Fatalf("apps %+v, want one with captures:write", list)
		}
		appID = list[0].ID
		if again := alice.get("/settings/apps"); strings.Contains(again.body, token) || !strings.Contains(again.body, "Last used") {
			t.Error("the list shows the token again, or not that the app was used")
		}
	})
	t.Run("CreateRefusals", func(t *testing.T) {
		for _, c := range []struct {
			name string
			form url.Values
			want string
		}{
			{"NoName", url.Values{"name": {"  "}, "scopes": {"captures:write"}}, "The name field is required."},
			{"NoScope", url.Values{"name": {"Shortcut"}}, "Give at least one scope."},
			{"UnknownScope", url.Values{"name": {"Shortcut"}, "scopes": {"everything"}}, "does not exist"},
			{"LongName", url.Values{"name": {strings.Repeat("é", 256)}, "scopes": {"captures:write"}}, "longer than 255 characters"},
		} {
			t.Run(c.name, func(t *testing.T) {
				has(t, "POST /settings/apps", alice.post("/settings/apps", c.form), 422, `role="alert"`, html.EscapeString(c.want))
			})
		}
	})
	t.Run("SessionGrantsAnyScope", func(t *testing.T) {
		a := alice.post("/settings/apps", url.Values{"name": {"Backup"}, "scopes": {"*"}})
		has(t, "POST /settings/apps", a, 201, "Backup is ready")
		tok := html.UnescapeString(shownToken.FindStringSubmatch(a.body)[1])
		if got := h.apiGet(tok, "/api/users/me/export"); got != http.StatusOK {
			t.Errorf("an app given * exports: %d, want 200", got)
		}
	})
	t.Run("RenameAndChangeScopes", func(t *testing.T) {
		a := alice.post("/settings/apps/"+appID, url.Values{"name": {"Reader"}, "scopes": {"captures:read", "captures:write"}})
		if a.status != http.StatusSeeOther {
			t.Fatalf("POST /settings/apps/{id} = %d, want 303\n%s", a.status, a.body)
		}
		has(t, "GET /settings/apps", alice.get(a.location), 200, "Reader", "Saved.")
		if got := h.apiGet(token, "/api/captures"); got != http.StatusOK {
			t.Errorf("the token given captures:read reads captures: %d, want 200", got)
		}
		has(t, "no scope", alice.post("/settings/apps/"+appID, url.Values{"name": {"Reader"}}), 422, "Give at least one scope.")
	})
	t.Run("AnotherUsersAppIs404", func(t *testing.T) {
		has(t, "rename", bob.post("/settings/apps/"+appID, url.Values{"name": {"Mine"}, "scopes": {"*"}}), 404, "Not found")
		has(t, "bad form", bob.post("/settings/apps/"+appID, url.Values{"name": {""}}), 404, "Not found")
		has(t, "delete", bob.post("/settings/apps/"+appID+"/delete", url.Values{"confirm": {"yes"}}), 404, "Not found")
		if strings.Contains(bob.get("/settings/apps").body, "Reader") {
			t.Error("bob's apps list alice's app")
		}
		if got := h.apiGet(token, "/api/captures"); got != http.StatusOK {
			t.Errorf("alice's app after bob's tries: %d, want 200", got)
		}
	})
	t.Run("DeleteNeedsConfirmation", func(t *testing.T) {
		has(t, "unconfirmed", alice.post("/settings/apps/"+appID+"/delete", nil), 422, "Confirm that the app should be removed")
		a := alice.post("/settings/apps/"+appID+"/delete", url.Values{"confirm": {"yes"}})
		if a.status != http.StatusSeeOther {
			t.Fatalf("delete = %d, want 303", a.status)
		}
		if got := h.apiGet(token, "/api/captures"); got != http.StatusUnauthorized {
			t.Errorf("a removed app's token: %d, want 401", got)
		}
	})
	t.Run("SignedOutIsSentToSignIn", func(t *testing.T) {
		if a := h.anonymous().get("/settings/apps"); a.status != http.StatusSeeOther || a.location != "/" {
			t.Errorf("GET /settings/apps signed out = %d to %q", a.status, a.location)
		}
	})
}

// TestAppsRefuseOwnerScope: the form offers no metrics:read, and a form
// posted with it anyway is refused with 422 and the sentence saying the
// owner grants it at the command line.
func TestAppsRefuseOwnerScope(t *testing.T) {
	h := newHarness(t, nil)
	alice := h.signIn(h.alice)
	if a := alice.get("/settings/apps"); strings.Contains(a.body, `value="metrics:read"`) {
		t.Error("the apps form offers metrics:read, which only the owner grants")
	}
	a := alice.post("/settings/apps", url.Values{"name": {"Prometheus"}, "scopes": {"metrics:read"}})
	has(t, "POST /settings/apps with metrics:read", a, 422, "recur token create")
	if list, _, _ := h.store.ListApps(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 10}); len(list) != 0 {
		t.Errorf("apps %+v, want none", list)
	}
}
