package web

import (
	"context"
	"testing"

	"github.com/recur-journal/recur/health"
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
			b := cache.get(context.Background(), reporter{c.health})
			switch {
			case c.command == "" && b != nil:
				t.Errorf("banner %+v, want none", b)
			case c.command != "" && (b == nil || b.Command != c.command):
				t.Errorf("banner %+v, want the command %q", b, c.command)
			}
		})
	}
}
