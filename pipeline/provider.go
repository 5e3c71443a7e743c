package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Provider is a model server's client: the calls of a run, and a check of
// the server for the health report and doctor.
type Provider interface {
	Model
	// Check reports whether the server answers and has the models.
	Check(ctx context.Context) Status
}

var _ Provider = (*Ollama)(nil)

// ModelOptions configures a model server's client, whichever the provider.
type ModelOptions struct {
	// Provider is "ollama" (the default) or "openai" for any
	// OpenAI-compatible server.
	Provider string
	// URL is the server's address; for openai the API's base, /v1 included.
	URL        string
	Model      string
	EmbedModel string
	// APIKey is sent as a bearer token to an openai server when set.
	APIKey  string
	Timeout time.Duration
}

// NewProvider returns the client of the server opts describe.
func NewProvider(opts ModelOptions) (Provider, error) {
	switch opts.Provider {
	case "", "ollama":
		return NewOllama(OllamaOptions{URL: opts.URL, Model: opts.Model, EmbedModel: opts.EmbedModel, Timeout: opts.Timeout})
	case "openai":
		return NewOpenAI(OpenAIOptions{URL: opts.URL, Model: opts.Model, EmbedModel: opts.EmbedModel, APIKey: opts.APIKey,
			Timeout: opts.Timeout})
	}
	return nil, fmt.Errorf("model provider %q is neither ollama nor openai", opts.Provider)
}

// modelHTTPClient is the HTTP client of a model server's provider: our own
// time-outs, never http.DefaultClient's, and straight to the server.
func modelHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       90 * time.Second,
		},
	}
}

// publicURL is u without the user name and password it may carry, as
// health, logs and metrics show it.
func publicURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	p.User = nil
	return p.String()
}

// exchange sends body (if any) as JSON with method to url, with the
// headers header adds, and reads the answer up to limit+1 bytes, so that
// the caller can tell one past limit. A send or read that fails is
// classified (see classify).
func exchange(ctx context.Context, hc *http.Client, method, url string, body any, limit int64, header func(http.Header)) (*http.Response, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if header != nil {
		header(req.Header)
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, nil, classify(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, nil, classify(err)
	}
	return res, b, nil
}
