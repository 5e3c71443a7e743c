// Package pipeline analyses captures with a local model served by Ollama:
// the queue, its workers, the steps of a run and the Ollama client.
package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/ollama/ollama/api"
)

// OllamaOptions configures the Ollama client.
type OllamaOptions struct {
	URL        string
	Model      string
	EmbedModel string
	// Timeout bounds one model call, streaming included.
	Timeout time.Duration
}

// Ollama talks to an Ollama server through its official client, over an
// HTTP client with our own timeouts.
type Ollama struct {
	client *api.Client
	http   *http.Client
	base   *url.URL
	opts   OllamaOptions
}

// NewOllama returns a client for the server at opts.URL.
func NewOllama(opts OllamaOptions) (*Ollama, error) {
	u, err := url.Parse(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("ollama url: %w", err)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	hc := modelHTTPClient(opts.Timeout)
	return &Ollama{client: api.NewClient(u, hc), http: hc, base: u, opts: opts}, nil
}

// Status is what a check of a model server found.
type Status struct {
	// Provider is "ollama" or "openai", as [model] provider says.
	Provider          string
	URL               string
	Reachable         bool
	Version           string
	Model             string
	ModelPresent      bool
	EmbedModel        string
	EmbedModelPresent bool
	// Problem says what is wrong and what to do about it; empty when all is well.
	Problem string
}

// Check asks the server for its version and whether the models are pulled.
func (o *Ollama) Check(ctx context.Context) Status {
	st := Status{Provider: "ollama", URL: publicURL(o.opts.URL), Model: o.opts.Model, EmbedModel: o.opts.EmbedModel}
	v, err := o.client.Version(ctx)
	if err != nil {
		st.Problem = fmt.Sprintf("Ollama does not answer at %s (%v). Start it with `ollama serve`, or set [model] url.", st.URL, err)
		return st
	}
	st.Reachable, st.Version = true, v
	st.ModelPresent = o.hasModel(ctx, o.opts.Model)
	if o.opts.EmbedModel != "" {
		st.EmbedModelPresent = o.hasModel(ctx, o.opts.EmbedModel)
	}
	switch {
	case !st.ModelPresent:
		st.Problem = fmt.Sprintf("The model %s is not pulled. Run `ollama pull %s`.", o.opts.Model, o.opts.Model)
	case o.opts.EmbedModel != "" && !st.EmbedModelPresent:
		st.Problem = fmt.Sprintf("The embedding model %s is not pulled. Run `ollama pull %s`.", o.opts.EmbedModel, o.opts.EmbedModel)
	}
	return st
}

func (o *Ollama) hasModel(ctx context.Context, name string) bool {
	_, err := o.client.Show(ctx, &api.ShowRequest{Model: name})
	return err == nil
}
