package server_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)

func TestAuthentication(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	readOnly := storetest.MustCreateToken(t, h.store, h.alice.ID, "settings:read")
	past := h.store.Now().Add(-time.Hour)
	expired, err := h.store.CreateToken(ctx, &store.Token{UserID: h.alice.ID, Name: "old", Scopes: []string{"*"}, ExpiresAt: &past})
	if err != nil {
		t.Fatal(err)
	}
	revoked := storetest.MustCreateToken(t, h.store, h.alice.ID)
	if err := h.store.RevokeToken(ctx, h.alice.ID, strings.Split(revoked, "|")[0]); err != nil {
		t.Fatal(err)
	}
	unauthenticated := []string{`{"message":"Unauthenticated."}`}
	h.run([]scenario{
		{name: "NoToken", method: "GET", path: "/api/users/me", status: 401, contains: unauthenticated},
		{name: "Malformed", method: "GET", path: "/api/users/me", token: "nonsense", status: 401, contains: unauthenticated},
		{name: "WrongSecret", method: "GET", path: "/api/users/me", token: strings.Split(h.tokenA, "|")[0] + "|guess", status: 401, contains: unauthenticated},
		{name: "Expired", method: "GET", path: "/api/users/me", token: expired, status: 401, contains: unauthenticated},
		{name: "Revoked", method: "GET", path: "/api/users/me", token: revoked, status: 401, contains: unauthenticated},
		{name: "MissingScope", method: "GET", path: "/api/users/me", token: readOnly, status: 403,
			contains: []string{`{"message":"This token lacks the profile:read scope."}`}},
		{name: "MissingScopeOnWrite", method: "PUT", path: "/api/settings/me/timezone", token: readOnly, body: map[string]string{"value": "UTC"}, status: 403,
			contains: []string{"settings:write"}},
		{name: "ScopeGranted", method: "GET", path: "/api/settings/me", token: readOnly, status: 200},
		{name: "OpenRoute", method: "GET", path: "/api/health-check", status: 200},
	})
	t.Run("WWWAuthenticate", func(t *testing.T) {
		res := h.do("GET", "/api/users/me", "", nil)
		if got := res.Header.Get("Www-Authenticate"); !strings.HasPrefix(got, "Bearer") {
			t.Fatalf("WWW-Authenticate = %q, want a Bearer challenge", got)
		}
	})
}

func TestCurrentUser(t *testing.T) {
	h := newHarness(t)
	t.Run("OK", func(t *testing.T) {
		res := h.do("GET", "/api/users/me", h.tokenA, nil)
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		data := res.JSON(t)["data"].(map[string]any)
		if got, want := data["id"], h.alice.ID; got != want {
			t.Errorf("id = %v, want %v", got, want)
		}
		if got, want := data["email"], "alice@example.com"; got != want {
			t.Errorf("email = %v, want %v", got, want)
		}
		if got := data["created_at"].(string); !timestampRE.MatchString(got) {
			t.Errorf("created_at = %q, want six fractional digits and Z", got)
		}
		if v, ok := data["email_verified_at"]; !ok || v != nil {
			t.Errorf("email_verified_at = %v (present %v), want null", v, ok)
		}
		if _, ok := res.JSON(t)["$schema"]; ok {
			t.Error("body carries a $schema link")
		}
	})
	t.Run("AnotherUsersToken", func(t *testing.T) {
		data := h.do("GET", "/api/users/me", h.tokenB, nil).JSON(t)["data"].(map[string]any)
		if got, want := data["id"], h.bob.ID; got != want {
			t.Fatalf("id = %v, want bob's %v", got, want)
		}
	})
}

func TestSettings(t *testing.T) {
	t.Setenv(storetest.TimezoneVar, "") // the defaults, whatever zone the tests give users
	h := newHarness(t)
	h.run([]scenario{
		{name: "Defaults", method: "GET", path: "/api/settings/me", token: h.tokenA, status: 200,
			contains: []string{`{"data":[{"key":"app_locale","value":"en"},{"key":"timezone","value":"UTC"}]}`}},
		{name: "PutTimezone", method: "PUT", path: "/api/settings/me/timezone", token: h.tokenA,
			body: map[string]string{"value": "America/St_Johns"}, status: 200,
			contains: []string{`{"data":{"key":"timezone","value":"America/St_Johns"}}`}},
		{name: "PutLocaleCanonical", method: "PUT", path: "/api/settings/me/app_locale", token: h.tokenA,
			body: map[string]string{"value": "pt-br"}, status: 200, contains: []string{`"value":"pt-BR"`}},
		{name: "ReadBack", method: "GET", path: "/api/settings/me", token: h.tokenA, status: 200,
			contains: []string{`"America/St_Johns"`, `"pt-BR"`}},
		{name: "AnotherUserUnchanged", method: "GET", path: "/api/settings/me", token: h.tokenB, status: 200,
			contains: []string{`"UTC"`}, notContains: []string{"St_Johns"}},
		{name: "ErrUnknownZone", method: "PUT", path: "/api/settings/me/timezone", token: h.tokenA,
			body: map[string]string{"value": "Europe/Atlantis"}, status: 422,
			contains: []string{`"errors":{"value":["The timezone must be an IANA time zone name`}},
		{name: "ErrBadLocale", method: "PUT", path: "/api/settings/me/app_locale", token: h.tokenA,
			body: map[string]string{"value": "english please"}, status: 422, contains: []string{`"errors":{"value":[`}},
		{name: "ErrUnknownKey", method: "PUT", path: "/api/settings/me/colour", token: h.tokenA,
			body: map[string]string{"value": "blue"}, status: 422, contains: []string{`"errors":{"key":["The setting \"colour\" does not exist`}},
		{name: "ErrMissingValue", invalid: true, method: "PUT", path: "/api/settings/me/timezone", token: h.tokenA,
			body: map[string]string{}, status: 422, contains: []string{`"errors":{"value":["The value field is required."]}`}},
		{name: "ErrNoToken", method: "GET", path: "/api/settings/me", status: 401},
	})
}

func TestFeedback(t *testing.T) {
	h := newHarness(t)
	h.run([]scenario{
		{name: "OK", method: "POST", path: "/api/feedback", token: h.tokenA, body: map[string]string{"feedback": "Lovely calendar."}, status: 204},
		{name: "ErrMissing", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA, body: map[string]string{}, status: 422,
			contains: []string{`{"message":"The feedback field is required.","errors":{"feedback":["The feedback field is required."]}}`}},
		{name: "ErrEmpty", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA, body: map[string]string{"feedback": ""}, status: 422,
			contains: []string{`"feedback":["The feedback field is required."]`}},
		{name: "ErrBlank", method: "POST", path: "/api/feedback", token: h.tokenA, body: map[string]string{"feedback": "   "}, status: 422,
			contains: []string{`"feedback":["The feedback field is required."]`}},
		{name: "ErrTooLong", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA, body: map[string]string{"feedback": strings.Repeat("é", 2001)}, status: 422,
			contains: []string{`"feedback":["The feedback may not be longer than 2000 characters."]`}},
		{name: "LongestAllowed", method: "POST", path: "/api/feedback", token: h.tokenA, body: map[string]string{"feedback": strings.Repeat("é", 2000)}, status: 204},
		{name: "ErrWrongType", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA, body: `{"feedback": 12}`, status: 422,
			contains: []string{`"feedback":["The feedback must be a string."]`}},
		{name: "ErrMalformedJSON", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA, body: `{"feedback": `, status: 422,
			contains: []string{`"errors":{"body":["The request body must be a JSON object."]}`}},
		{name: "ErrNoBody", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA, status: 422, contains: []string{`"errors":{"body":[`}},
		{name: "ErrNoToken", method: "POST", path: "/api/feedback", body: map[string]string{"feedback": "hi"}, status: 401},
	})
	t.Run("Stored", func(t *testing.T) {
		list, err := h.store.ListFeedback(context.Background(), h.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(list), 2; got != want {
			t.Fatalf("alice has %d feedback, want %d", got, want)
		}
		if list[1].Body != "Lovely calendar." {
			t.Fatalf("oldest feedback = %q", list[1].Body)
		}
		other, _ := h.store.ListFeedback(context.Background(), h.bob.ID)
		if len(other) != 0 {
			t.Fatalf("bob has %d feedback, want none", len(other))
		}
	})
}

func TestErrors(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.MaxBodyBytes = 4096 })
	h.run([]scenario{
		{name: "UnknownRoute", invalid: true, method: "GET", path: "/api/nothing-here", token: h.tokenA, status: 404,
			contains: []string{`{"message":"No API route matches GET /api/nothing-here."}`}},
		{name: "BodyTooLarge", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA,
			body: `{"feedback":"` + strings.Repeat("a", 5000) + `"}`, status: 413, contains: []string{`"message":"The request body is too large`}},
		{name: "HomePage", method: "GET", path: "/", status: 200, contains: []string{"Email me a sign-in link", `src="/static/`, `/app.js"`}},
		{name: "UnknownField", invalid: true, method: "POST", path: "/api/feedback", token: h.tokenA,
			body: `{"feedback":"ok","mood":"great"}`, status: 422, contains: []string{`"mood":["The mood field is not recognised."]`}},
	})
	t.Run("RequestID", func(t *testing.T) {
		res := h.do("GET", "/api/health-check", "", nil)
		if res.Header.Get("X-Request-Id") == "" {
			t.Fatal("no X-Request-Id on the answer")
		}
	})
}

func TestHealthCheck(t *testing.T) {
	t.Run("OllamaDown", func(t *testing.T) {
		h := newHarness(t, func(o *server.Options) {
			o.Health = fakeHealth{ollama: server.OllamaHealth{URL: "http://127.0.0.1:1", Model: "m", Error: "Ollama does not answer"}}
		})
		res := h.do("GET", "/api/health-check", h.tokenA, nil) // details need a credential
		if res.Status != http.StatusOK {
			t.Fatalf("status = %d, want 200 while the database works", res.Status)
		}
		data := res.JSON(t)["data"].(map[string]any)
		if got, want := data["status"], "degraded"; got != want {
			t.Errorf("status = %v, want %v", got, want)
		}
		if got := data["ollama"].(map[string]any)["reachable"]; got != false {
			t.Errorf("ollama.reachable = %v, want false", got)
		}
		if got := data["database"].(map[string]any)["ok"]; got != true {
			t.Errorf("database.ok = %v", got)
		}
		if got := data["queue"].(map[string]any)["queued"]; got != float64(3) {
			t.Errorf("queue.queued = %v, want 3", got)
		}
	})
	t.Run("AllWell", func(t *testing.T) {
		h := newHarness(t, func(o *server.Options) {
			o.Health = fakeHealth{ollama: server.OllamaHealth{Reachable: true, ModelPresent: true}}
		})
		data := h.do("GET", "/api/health-check", "", nil).JSON(t)["data"].(map[string]any)
		if got, want := data["status"], "ok"; got != want {
			t.Errorf("status = %v, want %v", got, want)
		}
	})
	t.Run("DatabaseDown", func(t *testing.T) {
		h := newHarness(t)
		h.store.Close()
		res := h.do("GET", "/api/health-check", "", nil)
		if got, want := res.Status, http.StatusServiceUnavailable; got != want {
			t.Fatalf("status = %d, want %d", got, want)
		}
		if got := res.JSON(t)["data"].(map[string]any)["status"]; got != "failing" {
			t.Fatalf("status = %v, want failing", got)
		}
	})
}

type fakeHealth struct{ ollama server.OllamaHealth }

func (f fakeHealth) QueueHealth(context.Context) (server.QueueHealth, error) {
	return server.QueueHealth{Workers: 2, Queued: 3}, nil
}
func (f fakeHealth) OllamaHealth(context.Context) server.OllamaHealth { return f.ollama }

func TestOpenAPI(t *testing.T) {
	h := newHarness(t)
	res := h.do("GET", "/api/openapi.json", "", nil)
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	doc := res.JSON(t)
	if got, want := doc["openapi"], "3.1.0"; got != want {
		t.Errorf("openapi = %v, want %v", got, want)
	}
	if got, want := doc["info"].(map[string]any)["version"], "1.0.0"; got != want {
		t.Errorf("info.version = %v, want %v", got, want)
	}
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/health-check", "/users/me", "/settings/me", "/settings/me/{key}", "/feedback"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("paths lack %s", p)
		}
	}
	put := paths["/settings/me/{key}"].(map[string]any)["put"].(map[string]any)
	responses := put["responses"].(map[string]any)
	for _, code := range []string{"200", "401", "403", "422"} {
		if _, ok := responses[code]; !ok {
			t.Errorf("PUT /settings/me/{key} documents no %s response", code)
		}
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	desc := schemes["bearer"].(map[string]any)["description"].(string)
	for _, s := range account.Scopes {
		if !strings.Contains(desc, string(s.Name)) {
			t.Errorf("security scheme does not document scope %s", s.Name)
		}
	}
	if strings.Contains(string(res.Body), `"$schema"`) {
		t.Error("document defines $schema properties; bodies must not carry them")
	}
}

func TestDocs(t *testing.T) {
	h := newHarness(t)
	res := h.do("GET", "/api/docs/api", "", nil)
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type = %q", ct)
	}
	body := string(res.Body)
	for _, want := range []string{"/settings/me/{key}", "feedback:write", "Recur API"} {
		if !strings.Contains(body, want) {
			t.Errorf("docs lack %q", want)
		}
	}
	for _, bad := range []string{`src="http`, `href="http`, "cdn"} {
		if strings.Contains(body, bad) {
			t.Errorf("docs fetch something from elsewhere: %q", bad)
		}
	}
}
