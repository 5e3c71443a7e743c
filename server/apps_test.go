package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// registerApp registers an app through the API and returns its id and token.
func registerApp(t *testing.T, h *harness, token string, body any) (id, plaintext string) {
	t.Helper()
	res := h.do("POST", "/api/apps", token, body)
	if res.Status != 201 {
		t.Fatalf("register app: status %d: %s", res.Status, res.Body)
	}
	data := res.JSON(t)["data"].(map[string]any)
	return data["id"].(string), data["token"].(string)
}

// fieldNames lists the keys of a JSON object, sorted.
func fieldNames(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var appFields = []string{"created_at", "id", "last_used_at", "name", "scopes", "updated_at"}

func TestCreateApp(t *testing.T) {
	h := newHarness(t)
	t.Run("OK", func(t *testing.T) {
		res := h.do("POST", "/api/apps", h.tokenA, map[string]any{"name": "  Reader  ", "scopes": []string{"captures:read", "patterns:read"}})
		if res.Status != 201 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		data := res.JSON(t)["data"].(map[string]any)
		if got, want := fieldNames(data), []string{"created_at", "id", "last_used_at", "name", "scopes", "token", "updated_at"}; !slices.Equal(got, want) {
			t.Fatalf("fields = %v, want %v", got, want)
		}
		if got, want := data["name"], "Reader"; got != want {
			t.Errorf("name = %v, want %v", got, want)
		}
		if got, want := data["scopes"], []any{"captures:read", "patterns:read"}; !slices.Equal(got.([]any), want) {
			t.Errorf("scopes = %v, want %v", got, want)
		}
		if data["last_used_at"] != nil {
			t.Errorf("last_used_at = %v, want null", data["last_used_at"])
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if got := data[k].(string); !timestampRE.MatchString(got) {
				t.Errorf("%s = %q, want six fractional digits and Z", k, got)
			}
		}
		token := data["token"].(string)
		if id, secret, ok := strings.Cut(token, "|"); !ok || id == "" || secret == "" {
			t.Fatalf("token = %q, want <id>|<secret>", token)
		}
		if res := h.do("GET", "/api/captures", token, nil); res.Status != 200 {
			t.Errorf("GET /api/captures with the app's token: %d %s", res.Status, res.Body)
		}
		res = h.do("POST", "/api/captures", token, map[string]string{"text": "Slept badly."})
		if res.Status != 403 || !strings.Contains(string(res.Body), "captures:write") {
			t.Errorf("POST /api/captures with a read-only app token: %d %s, want 403 naming captures:write", res.Status, res.Body)
		}
	})
	t.Run("DefaultScopes", func(t *testing.T) {
		res := h.do("POST", "/api/apps", h.tokenA, map[string]any{"name": "Shortcut"})
		if res.Status != 201 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		data := res.JSON(t)["data"].(map[string]any)
		if got, want := data["scopes"], []any{"captures:write"}; !slices.Equal(got.([]any), want) {
			t.Fatalf("scopes = %v, want %v", got, want)
		}
		token := data["token"].(string)
		if res := h.do("POST", "/api/captures", token, map[string]string{"text": "Posted from my phone."}); res.Status != 201 {
			t.Errorf("POST /api/captures: %d %s", res.Status, res.Body)
		}
		res = h.do("GET", "/api/captures", token, nil)
		if res.Status != 403 || !strings.Contains(string(res.Body), "captures:read") {
			t.Errorf("GET /api/captures: %d %s, want 403 naming captures:read", res.Status, res.Body)
		}
		res = h.do("GET", "/api/apps", token, nil)
		if res.Status != 403 || !strings.Contains(string(res.Body), "apps:manage") {
			t.Errorf("GET /api/apps with the app's own token: %d %s, want 403 naming apps:manage", res.Status, res.Body)
		}
	})

	limited := storetest.MustCreateToken(t, h.store, h.alice.ID, "apps:manage", "captures:read")
	noManage := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")
	h.run([]scenario{
		{name: "LimitedTokenGrantsWhatItCarries", method: "POST", path: "/api/apps", token: limited,
			body: map[string]any{"name": "Reader", "scopes": []string{"captures:read"}}, status: 201, contains: []string{`"scopes":["captures:read"]`}},
		{name: "ErrLimitedTokenGrantsMore", method: "POST", path: "/api/apps", token: limited,
			body: map[string]any{"name": "Writer", "scopes": []string{"captures:read", "captures:write"}}, status: 403,
			contains: []string{`{"message":"This token lacks the captures:write scope, so it cannot make a credential that carries it."}`}},
		{name: "ErrLimitedTokenDefaultScopes", method: "POST", path: "/api/apps", token: limited,
			body: map[string]any{"name": "Shortcut"}, status: 403,
			contains: []string{`{"message":"This token lacks the captures:write scope, so it cannot make a credential that carries it."}`}},
		{name: "ErrLimitedTokenGrantsAll", method: "POST", path: "/api/apps", token: limited,
			body: map[string]any{"name": "Everything", "scopes": []string{"*"}}, status: 403,
			contains: []string{`{"message":"This token lacks the * scope, so it cannot make a credential that carries it."}`}},
		{name: "AllScopesTokenGrantsAll", method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"name": "Everything", "scopes": []string{"*"}}, status: 201, contains: []string{`"scopes":["*"]`}},
		{name: "RepeatedScopesOnce", method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"name": "Twice", "scopes": []string{"captures:read", "captures:read"}}, status: 201,
			contains: []string{`"scopes":["captures:read"]`}},
		{name: "ErrUnknownScope", method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"name": "Odd", "scopes": []string{"captures:read", "mind:read"}}, status: 422,
			contains: []string{`"errors":{"scopes":["The scope \"mind:read\" does not exist; known scopes are profile:read,`}},
		{name: "ErrNoScopes", method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"name": "None", "scopes": []string{}}, status: 422, contains: []string{`"errors":{"scopes":["Give at least one scope`}},
		{name: "ErrScopesNotList", invalid: true, method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"name": "None", "scopes": "captures:read"}, status: 422, contains: []string{`"errors":{"scopes":[`}},
		{name: "ErrNameMissing", invalid: true, method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"scopes": []string{"captures:read"}}, status: 422,
			contains: []string{`{"message":"The name field is required.","errors":{"name":["The name field is required."]}}`}},
		{name: "ErrNameBlank", method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"name": "   "}, status: 422, contains: []string{`"errors":{"name":["The name field is required."]}`}},
		{name: "ErrNameTooLong", invalid: true, method: "POST", path: "/api/apps", token: h.tokenA,
			body: map[string]any{"name": strings.Repeat("a", 256)}, status: 422,
			contains: []string{`"errors":{"name":["The name may not be longer than 255 characters."]}`}},
		{name: "ErrNoBody", invalid: true, method: "POST", path: "/api/apps", token: h.tokenA, status: 422, contains: []string{`"errors":{"body":[`}},
		{name: "ErrNoToken", method: "POST", path: "/api/apps", body: map[string]any{"name": "x"}, status: 401},
		{name: "ErrScope", method: "POST", path: "/api/apps", token: noManage, body: map[string]any{"name": "x"}, status: 403,
			contains: []string{`{"message":"This token lacks the apps:manage scope."}`}},
	})
}

func TestSessionGrantsAnyScope(t *testing.T) {
	h, _ := accountsHarness(t)
	b := signedInAlice(t, h)
	res := b.do("POST", "/api/apps", map[string]any{"name": "Everything", "scopes": []string{"*"}})
	if res.Status != 201 || !strings.Contains(string(res.Body), `"scopes":["*"]`) {
		t.Fatalf("register with a session: %d %s", res.Status, res.Body)
	}
	token := res.JSON(t)["data"].(map[string]any)["token"].(string)
	if res := h.do("GET", "/api/users/me", token, nil); res.Status != 200 || !strings.Contains(string(res.Body), h.alice.Email) {
		t.Fatalf("the new token: %d %s", res.Status, res.Body)
	}
}

func TestReadApps(t *testing.T) {
	h := newHarness(t)
	older, olderToken := registerApp(t, h, h.tokenA, map[string]any{"name": "Older", "scopes": []string{"captures:read"}})
	newer, _ := registerApp(t, h, h.tokenA, map[string]any{"name": "Newer"})
	bobs, _ := registerApp(t, h, h.tokenB, map[string]any{"name": "Bob's"})
	h.do("GET", "/api/captures", olderToken, nil) // marks it used
	noManage := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")

	t.Run("List", func(t *testing.T) {
		res := h.do("GET", "/api/apps", h.tokenA, nil)
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		body := res.JSON(t)
		if got, want := fieldNames(body), []string{"data", "links", "meta"}; !slices.Equal(got, want) {
			t.Fatalf("envelope = %v, want %v", got, want)
		}
		data := body["data"].([]any)
		if got, want := len(data), 2; got != want {
			t.Fatalf("%d apps, want %d (bob's left out)", got, want)
		}
		first, second := data[0].(map[string]any), data[1].(map[string]any)
		if first["id"] != newer || second["id"] != older {
			t.Errorf("order = %v, %v; want newest first", first["name"], second["name"])
		}
		if got := fieldNames(first); !slices.Equal(got, appFields) {
			t.Errorf("fields = %v, want %v (never the token)", got, appFields)
		}
		if got, want := body["meta"].(map[string]any)["total"], float64(2); got != want {
			t.Errorf("total = %v, want %v", got, want)
		}
	})
	t.Run("Paged", func(t *testing.T) {
		body := h.do("GET", "/api/apps?limit=1&page=2", h.tokenA, nil).JSON(t)
		data := body["data"].([]any)
		if len(data) != 1 || data[0].(map[string]any)["id"] != older {
			t.Fatalf("page 2 of 1 = %v, want the older app", data)
		}
	})
	t.Run("Get", func(t *testing.T) {
		res := h.do("GET", "/api/apps/"+older, h.tokenA, nil)
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		data := res.JSON(t)["data"].(map[string]any)
		if got := fieldNames(data); !slices.Equal(got, appFields) {
			t.Fatalf("fields = %v, want %v (never the token)", got, appFields)
		}
		if got, want := data["name"], "Older"; got != want {
			t.Errorf("name = %v, want %v", got, want)
		}
		if got, _ := data["last_used_at"].(string); !timestampRE.MatchString(got) {
			t.Errorf("last_used_at = %v, want the time the token was used", data["last_used_at"])
		}
	})
	h.run([]scenario{
		{name: "ErrListPage", invalid: true, method: "GET", path: "/api/apps?page=0", token: h.tokenA, status: 422, contains: []string{`"errors":{"page":[`}},
		{name: "ErrListLimit", invalid: true, method: "GET", path: "/api/apps?limit=1001", token: h.tokenA, status: 422, contains: []string{`"errors":{"limit":[`}},
		{name: "ErrListNoToken", method: "GET", path: "/api/apps", status: 401},
		{name: "ErrListScope", method: "GET", path: "/api/apps", token: noManage, status: 403, contains: []string{"apps:manage"}},
		{name: "ErrGetNoToken", method: "GET", path: "/api/apps/" + older, status: 401},
		{name: "ErrGetScope", method: "GET", path: "/api/apps/" + older, token: noManage, status: 403, contains: []string{"apps:manage"}},
		{name: "ErrGetUnknown", method: "GET", path: "/api/apps/01900000-0000-7000-8000-000000000000", token: h.tokenA, status: 404, contains: []string{`{"message":"App not found."}`}},
		{name: "ErrGetAnotherUsers", method: "GET", path: "/api/apps/" + bobs, token: h.tokenA, status: 404,
			contains: []string{`{"message":"App not found."}`}, notContains: []string{"Bob's"}},
		{name: "OwnerSeesIt", method: "GET", path: "/api/apps/" + bobs, token: h.tokenB, status: 200, contains: []string{"Bob's"}},
	})
}

func TestUpdateApp(t *testing.T) {
	h := newHarness(t)
	id, token := registerApp(t, h, h.tokenA, map[string]any{"name": "Reader", "scopes": []string{"captures:read"}})
	bobs, _ := registerApp(t, h, h.tokenB, map[string]any{"name": "Bob's"})
	limited := storetest.MustCreateToken(t, h.store, h.alice.ID, "apps:manage", "captures:read")
	noManage := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")

	t.Run("Scopes", func(t *testing.T) {
		h.advance(1e9)
		res := h.do("PATCH", "/api/apps/"+id, h.tokenA, map[string]any{"scopes": []string{"captures:write"}})
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		data := res.JSON(t)["data"].(map[string]any)
		if got := fieldNames(data); !slices.Equal(got, appFields) {
			t.Fatalf("fields = %v, want %v", got, appFields)
		}
		if got, want := data["scopes"], []any{"captures:write"}; !slices.Equal(got.([]any), want) {
			t.Errorf("scopes = %v, want %v", got, want)
		}
		if got, want := data["name"], "Reader"; got != want {
			t.Errorf("name = %v, want %v (unchanged)", got, want)
		}
		if data["updated_at"] == data["created_at"] {
			t.Errorf("updated_at = created_at = %v, want it moved", data["updated_at"])
		}
		// The same token now carries the new scopes.
		if res := h.do("POST", "/api/captures", token, map[string]string{"text": "Walked the dog."}); res.Status != 201 {
			t.Errorf("POST /api/captures with the changed token: %d %s", res.Status, res.Body)
		}
		if res := h.do("GET", "/api/captures", token, nil); res.Status != 403 {
			t.Errorf("GET /api/captures with the changed token: %d %s, want 403", res.Status, res.Body)
		}
	})
	t.Run("Name", func(t *testing.T) {
		res := h.do("PATCH", "/api/apps/"+id, h.tokenA, map[string]any{"name": " Shortcut "})
		if res.Status != 200 || !strings.Contains(string(res.Body), `"name":"Shortcut"`) || !strings.Contains(string(res.Body), `"scopes":["captures:write"]`) {
			t.Fatalf("rename: %d %s", res.Status, res.Body)
		}
		if got := h.do("GET", "/api/apps/"+id, h.tokenA, nil); !strings.Contains(string(got.Body), `"name":"Shortcut"`) {
			t.Fatalf("read back: %s", got.Body)
		}
	})
	h.run([]scenario{
		{name: "NoBody", method: "PATCH", path: "/api/apps/" + id, token: h.tokenA, status: 200,
			contains: []string{`"name":"Shortcut"`, `"scopes":["captures:write"]`}, notContains: []string{`"token"`}},
		{name: "EmptyObject", method: "PATCH", path: "/api/apps/" + id, token: h.tokenA, body: map[string]any{}, status: 200,
			contains: []string{`"name":"Shortcut"`}},
		{name: "LimitedTokenGrantsWhatItCarries", method: "PATCH", path: "/api/apps/" + id, token: limited,
			body: map[string]any{"scopes": []string{"captures:read"}}, status: 200, contains: []string{`"scopes":["captures:read"]`}},
		{name: "ErrLimitedTokenGrantsMore", method: "PATCH", path: "/api/apps/" + id, token: limited,
			body: map[string]any{"scopes": []string{"captures:write"}}, status: 403,
			contains: []string{`{"message":"This token lacks the captures:write scope, so it cannot make a credential that carries it."}`}},
		{name: "UnchangedAfterRefusal", method: "GET", path: "/api/apps/" + id, token: h.tokenA, status: 200,
			contains: []string{`"scopes":["captures:read"]`}},
		{name: "LimitedTokenRenames", method: "PATCH", path: "/api/apps/" + id, token: limited,
			body: map[string]any{"name": "Reader again"}, status: 200, contains: []string{`"name":"Reader again"`}},
		{name: "ErrUnknownScope", method: "PATCH", path: "/api/apps/" + id, token: h.tokenA,
			body: map[string]any{"scopes": []string{"everything"}}, status: 422, contains: []string{`"scopes":["The scope \"everything\" does not exist`}},
		{name: "ErrNoScopes", method: "PATCH", path: "/api/apps/" + id, token: h.tokenA,
			body: map[string]any{"scopes": []string{}}, status: 422, contains: []string{`"errors":{"scopes":[`}},
		{name: "ErrNameBlank", method: "PATCH", path: "/api/apps/" + id, token: h.tokenA,
			body: map[string]any{"name": "  "}, status: 422, contains: []string{`"errors":{"name":["The name field is required."]}`}},
		{name: "ErrNameEmpty", invalid: true, method: "PATCH", path: "/api/apps/" + id, token: h.tokenA,
			body: map[string]any{"name": ""}, status: 422, contains: []string{`"errors":{"name":[`}},
		{name: "ErrNameTooLong", invalid: true, method: "PATCH", path: "/api/apps/" + id, token: h.tokenA,
			body: map[string]any{"name": strings.Repeat("a", 256)}, status: 422, contains: []string{`"errors":{"name":[`}},
		{name: "ErrNoToken", method: "PATCH", path: "/api/apps/" + id, body: map[string]any{"name": "x"}, status: 401},
		{name: "ErrScope", method: "PATCH", path: "/api/apps/" + id, token: noManage, body: map[string]any{"name": "x"}, status: 403,
			contains: []string{`{"message":"This token lacks the apps:manage scope."}`}},
		{name: "ErrUnknown", method: "PATCH", path: "/api/apps/01900000-0000-7000-8000-000000000000", token: h.tokenA, body: map[string]any{"name": "x"}, status: 404},
		{name: "ErrAnotherUsers", method: "PATCH", path: "/api/apps/" + bobs, token: h.tokenA, body: map[string]any{"name": "Mine now"}, status: 404,
			notContains: []string{"Bob's"}},
		{name: "AnotherUsersUnchanged", method: "GET", path: "/api/apps/" + bobs, token: h.tokenB, status: 200,
			contains: []string{`"name":"Bob's"`, `"scopes":["captures:write"]`}},
	})
}

func TestDeleteApp(t *testing.T) {
	h := newHarness(t)
	id, token := registerApp(t, h, h.tokenA, map[string]any{"name": "Manager", "scopes": []string{"apps:manage", "captures:read"}})
	bobs, bobsToken := registerApp(t, h, h.tokenB, map[string]any{"name": "Bob's", "scopes": []string{"captures:read"}})
	noManage := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")
	h.run([]scenario{
		{name: "AppTokenManagesApps", method: "GET", path: "/api/apps", token: token, status: 200, contains: []string{`"name":"Manager"`}},
		{name: "ErrNoToken", method: "DELETE", path: "/api/apps/" + id, status: 401},
		{name: "ErrScope", method: "DELETE", path: "/api/apps/" + id, token: noManage, status: 403,
			contains: []string{`{"message":"This token lacks the apps:manage scope."}`}},
		{name: "ErrUnknown", method: "DELETE", path: "/api/apps/01900000-0000-7000-8000-000000000000", token: h.tokenA, status: 404},
		{name: "ErrAnotherUsers", method: "DELETE", path: "/api/apps/" + bobs, token: h.tokenA, status: 404},
		{name: "AnotherUsersKept", method: "GET", path: "/api/apps/" + bobs, token: h.tokenB, status: 200},
		{name: "AnotherUsersTokenWorks", method: "GET", path: "/api/captures", token: bobsToken, status: 200},
		{name: "OK", method: "DELETE", path: "/api/apps/" + id, token: h.tokenA, status: 204},
		{name: "TokenRevoked", method: "GET", path: "/api/captures", token: token, status: 401, contains: []string{`{"message":"Unauthenticated."}`}},
		{name: "Gone", method: "GET", path: "/api/apps/" + id, token: h.tokenA, status: 404},
		{name: "GoneFromList", method: "GET", path: "/api/apps", token: h.tokenA, status: 200, contains: []string{`"total":0`}},
		{name: "ErrAgain", method: "DELETE", path: "/api/apps/" + id, token: h.tokenA, status: 404},
	})
	t.Run("NoBody", func(t *testing.T) {
		other, _ := registerApp(t, h, h.tokenA, map[string]any{"name": "Short-lived"})
		res := h.do("DELETE", "/api/apps/"+other, h.tokenA, nil)
		if res.Status != 204 || len(res.Body) != 0 {
			t.Fatalf("delete: %d %q, want 204 and no body", res.Status, res.Body)
		}
	})
}

func TestAppsOpenAPI(t *testing.T) {
	h := newHarness(t)
	doc := h.do("GET", "/api/openapi.json", "", nil).JSON(t)
	paths := doc["paths"].(map[string]any)
	post := paths["/apps"].(map[string]any)["post"].(map[string]any)
	if desc := post["description"].(string); !strings.Contains(desc, "captures:write") || !strings.Contains(desc, "never shown again") {
		t.Errorf("POST /apps description = %q, want the default scope and that the token is shown once", desc)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	props := schemas["App"].(map[string]any)["properties"].(map[string]any)
	for _, f := range appFields {
		p, ok := props[f].(map[string]any)
		if !ok {
			t.Errorf("App schema lacks %s", f)
			continue
		}
		if d, _ := p["description"].(string); d == "" {
			t.Errorf("App.%s has no description", f)
		}
	}
	for _, p := range []string{"/apps/{app}", "/fcm-tokens/me", "/fcm-tokens/me/{fcmToken}"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("paths lack %s", p)
		}
	}
}
