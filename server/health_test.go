package server_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// troubledOllama is a report full of things the open answer must not show.
var troubledOllama = server.OllamaHealth{URL: "http://10.9.8.7:11434", Reachable: true, Version: "0.17.1",
	Model: "qwen2.5:7b", ModelPresent: false, Error: "The model qwen2.5:7b is not pulled; run: ollama pull qwen2.5:7b"}

// healthData returns the data object of a health-check answer (batchOf
// reads any {data: object} answer).
var healthData = batchOf

// checkOpenAnswer fails t unless data is exactly the open answer: the
// status and each part's ok, nothing else.
func checkOpenAnswer(t *testing.T, res response, status string, parts map[string]bool) {
	t.Helper()
	data := healthData(t, res)
	wantKeys := append([]string{"status"}, slices.Sorted(maps.Keys(parts))...)
	if got := slices.Sorted(maps.Keys(data)); !slices.Equal(got, slices.Sorted(slices.Values(wantKeys))) {
		t.Errorf("open answer has keys %v, want %v", got, wantKeys)
	}
	if got := data["status"]; got != status {
		t.Errorf("status = %v, want %v", got, status)
	}
	for part, ok := range parts {
		obj, _ := data[part].(map[string]any)
		if got, want := obj, map[string]any{"ok": ok}; !maps.Equal(got, want) {
			t.Errorf("%s = %v, want %v", part, got, want)
		}
	}
	for _, leak := range []string{"10.9.8.7", "0.17.1", "qwen", "ollama pull", `"test"`, "queued", "workers", "error"} {
		if strings.Contains(string(res.Body), leak) {
			t.Errorf("open answer shows %q: %s", leak, res.Body)
		}
	}
}

func TestHealthCheckOpenAnswer(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.Health = fakeHealth{ollama: troubledOllama} })
	t.Run("NoCredential", func(t *testing.T) {
		res := h.do("GET", "/api/health-check", "", nil)
		if res.Status != http.StatusOK {
			t.Fatalf("status = %d, want 200 while the database works", res.Status)
		}
		checkOpenAnswer(t, res, "degraded", map[string]bool{"database": true, "ollama": false, "queue": true})
	})
	t.Run("InvalidTokenIsAnonymous", func(t *testing.T) {
		res := h.do("GET", "/api/health-check", "not|a-token", nil)
		if res.Status != http.StatusOK {
			t.Fatalf("status = %d, want 200", res.Status)
		}
		checkOpenAnswer(t, res, "degraded", map[string]bool{"database": true, "ollama": false, "queue": true})
	})
}

func TestHealthCheckDetails(t *testing.T) {
	h, _ := accountsHarness(t, func(o *server.Options) { o.Health = fakeHealth{ollama: troubledOllama} })
	narrow := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")
	metricsToken := storetest.MustCreateToken(t, h.store, h.alice.ID, "metrics:read")
	user := *h.alice
	setPassword(t, h, &user, "correct horse battery")
	b := h.browser()
	if res := b.do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery"}); res.Status != 200 {
		t.Fatalf("sign-in: %d %s", res.Status, res.Body)
	}
	for name, get := range map[string]func() response{
		"MetricsToken": func() response { return h.do("GET", "/api/health-check", metricsToken, nil) },
		"EveryScope":   func() response { return h.do("GET", "/api/health-check", h.tokenA, nil) },
		"Session":      func() response { return b.do("GET", "/api/health-check", nil) },
	} {
		t.Run(name, func(t *testing.T) {
			res := get()
			if res.Status != http.StatusOK {
				t.Fatalf("status = %d, want 200", res.Status)
			}
			var got struct{ Data server.Health }
			if err := json.Unmarshal(res.Body, &got); err != nil {
				t.Fatal(err)
			}
			d := got.Data
			if d.Status != "degraded" || d.Version != "test" || !d.Database.OK {
				t.Errorf("status %q version %q database %+v", d.Status, d.Version, d.Database)
			}
			want := troubledOllama
			if d.Ollama == nil || !reflect.DeepEqual(*d.Ollama, want) {
				t.Errorf("ollama = %+v, want %+v", d.Ollama, want)
			}
			if d.Queue == nil || d.Queue.Queued != 3 || d.Queue.Workers != 2 || !d.Queue.OK {
				t.Errorf("queue = %+v, want 3 queued, 2 workers, ok", d.Queue)
			}
		})
	}
	// A token without metrics:read is no way to the details.
	t.Run("NarrowTokenGetsOpenAnswer", func(t *testing.T) {
		res := h.do("GET", "/api/health-check", narrow, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("status = %d, want 200", res.Status)
		}
		checkOpenAnswer(t, res, "degraded", map[string]bool{"database": true, "ollama": false, "queue": true})
	})
}

func TestHealthCheckStatus(t *testing.T) {
	well := server.OllamaHealth{Reachable: true, ModelPresent: true}
	failing := well
	failing.Failing = true
	unreachable := well
	unreachable.Reachable = false
	for _, tc := range []struct {
		name   string
		ollama server.OllamaHealth
		status string
	}{
		{"AllWell", well, "ok"},
		{"CallsFailing", failing, "degraded"},
		{"Unreachable", unreachable, "degraded"},
		{"ModelMissing", troubledOllama, "degraded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(o *server.Options) { o.Health = fakeHealth{ollama: tc.ollama} })
			checkOpenAnswer(t, h.do("GET", "/api/health-check", "", nil), tc.status,
				map[string]bool{"database": true, "ollama": tc.status == "ok", "queue": true})
			details := healthData(t, h.do("GET", "/api/health-check", h.tokenA, nil))
			if got := details["ollama"].(map[string]any)["calls_failing"]; got != tc.ollama.Failing {
				t.Errorf("calls_failing = %v, want %v", got, tc.ollama.Failing)
			}
		})
	}
	t.Run("DatabaseDown", func(t *testing.T) {
		h := newHarness(t, func(o *server.Options) { o.Health = fakeHealth{ollama: well} })
		h.store.Close()
		res := h.do("GET", "/api/health-check", h.tokenA, nil)
		if got, want := res.Status, http.StatusServiceUnavailable; got != want {
			t.Fatalf("status = %d, want %d", got, want)
		}
		// No credential can be checked, and the database's error stays in the log.
		checkOpenAnswer(t, res, "failing", map[string]bool{"database": false, "ollama": true, "queue": true})
	})
}

func TestHealthCheckDocumented(t *testing.T) {
	h := newHarness(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Security  []map[string][]string `json:"security"`
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						OneOf []struct {
							Ref string `json:"$ref"`
						} `json:"oneOf"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(h.do("GET", "/api/openapi.json", "", nil).Body, &doc); err != nil {
		t.Fatal(err)
	}
	get := doc.Paths["/health-check"]["get"]
	if len(get.Security) == 0 || len(get.Security[0]) != 0 {
		t.Errorf("security = %v, want an empty requirement first: a credential is optional", get.Security)
	}
	for _, code := range []string{"200", "503"} {
		var refs []string
		for _, s := range get.Responses[code].Content["application/json"].Schema.OneOf {
			refs = append(refs, s.Ref)
		}
		if want := []string{"#/components/schemas/DataHealthSummary", "#/components/schemas/DataHealth"}; !slices.Equal(refs, want) {
			t.Errorf("%s: oneOf %v, want %v", code, refs, want)
		}
	}
	summary := doc.Components.Schemas["HealthSummary"].Properties
	if got := slices.Sorted(maps.Keys(summary)); !slices.Equal(got, []string{"database", "ollama", "queue", "status"}) {
		t.Errorf("HealthSummary properties = %v", got)
	}
	if _, ok := doc.Components.Schemas["Health"].Properties["version"]; !ok {
		t.Error("Health documents no version")
	}
}
