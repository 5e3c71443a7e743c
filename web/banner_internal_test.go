package web

import (
	"context"
	"strings"
	"testing"

	"github.com/recur-journal/recur/health"
	"github.com/recur-journal/recur/internal/i18n"
)

type reporter struct{ ollama health.OllamaHealth }

func (r reporter) QueueHealth(context.Context) (health.QueueHealth, error) {
	return health.QueueHealth{}, nil
}
func (r reporter) OllamaHealth(context.Context) health.OllamaHealth { return r.ollama }

// The banner names what is missing and the command that fixes it: the
// model first, then the embedding model, which analysis needs once a
// journal has grown; with everything there, there is no banner.
func TestBannerSaysWhatToPull(t *testing.T) {
	well := health.OllamaHealth{URL: "http://127.0.0.1:11434", Reachable: true, Model: "qwen2.5:7b", ModelPresent: true,
		EmbedModel: "nomic-embed-text", EmbedPresent: true}
	noModel, noEmbed, noEmbedConfigured, down := well, well, well, well
	noModel.ModelPresent, noModel.EmbedPresent = false, false
	noEmbed.EmbedPresent = false
	noEmbedConfigured.EmbedModel, noEmbedConfigured.EmbedPresent = "", false
	down.Reachable, down.ModelPresent, down.EmbedPresent = false, false, false
	for _, c := range []struct {
		name    string
		health  health.OllamaHealth
		command string // empty: no banner
	}{
		{"AllThere", well, ""},
		{"NoEmbeddingModelConfigured", noEmbedConfigured, ""},
		{"ModelMissing", noModel, "ollama pull qwen2.5:7b"},
		{"EmbeddingModelMissing", noEmbed, "ollama pull nomic-embed-text"},
		{"Down", down, "ollama serve"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cache bannerCache
			b := cache.get(context.Background(), reporter{c.health}, i18n.For("en"))
			switch {
			case c.command == "" && b != nil:
				t.Errorf("banner %+v, want none", b)
			case c.command != "" && (b == nil || b.Command != c.command):
				t.Errorf("banner %+v, want the command %q", b, c.command)
			}
		})
	}
}

// With an OpenAI-compatible server the banner names no Ollama command but
// says what to do, and with a pool it lists every server's state, showing
// even while the others take the stopped one's calls.
func TestBannerOtherServers(t *testing.T) {
	well := health.OllamaHealth{Provider: "openai", URL: "http://127.0.0.1:8081/v1", Reachable: true, Model: "qwen2.5-7b-instruct",
		ModelPresent: true}
	down := well
	down.Reachable, down.ModelPresent = false, false
	b := newBanner(down, i18n.For("en"))
	if b == nil || b.Command != "" || !strings.Contains(b.Problem, "The model server does not answer at "+down.URL) ||
		!strings.Contains(b.Hint, "[model] url") {
		t.Errorf("openai server down: banner %+v; want the model server named, no command, a hint naming [model] url", b)
	}
	if strings.Contains(strings.ToLower(b.Problem+b.Hint), "ollama") {
		t.Errorf("openai server down: banner %+v speaks of Ollama", b)
	}

	pool := well
	pool.Endpoints = []health.EndpointHealth{{URL: "http://a:8081/v1", OK: true}, {URL: "http://b:8081/v1", Error: "does not answer"}}
	b = newBanner(pool, i18n.For("en"))
	if b == nil || len(b.Endpoints) != 2 || !b.Endpoints[0].Up || b.Endpoints[1].Up || !strings.Contains(b.Problem, "1 of the 2") {
		t.Fatalf("pool with one server down: banner %+v; want both listed, one up, one down", b)
	}
	pool.Endpoints[1] = health.EndpointHealth{URL: "http://b:8081/v1", OK: true}
	if b := newBanner(pool, i18n.For("en")); b != nil {
		t.Errorf("pool with both servers up: banner %+v, want none", b)
	}
}
