// Package health holds what the parts beyond the database report of
// themselves (the analysis queue, the model server), which the API's health check and
// the pages' banner both show.
package health

import (
	"context"
	"time"
)

// Reporter tells the health check about the parts beyond the database.
type Reporter interface {
	// QueueHealth counts the analysis queue.
	QueueHealth(ctx context.Context) (QueueHealth, error)
	// OllamaHealth says whether the model server answers and has the model.
	OllamaHealth(ctx context.Context) OllamaHealth
}

// QueueHealth counts the captures waiting for or under analysis.
type QueueHealth struct {
	OK         bool `json:"ok" doc:"Whether analysis goes on: the queue can be read and is not paused. Set by the health check."`
	Workers    int  `json:"workers" doc:"Analysis workers; one user's captures go one at a time."`
	Queued     int  `json:"queued" doc:"Captures waiting to be analysed."`
	Processing int  `json:"processing" doc:"Captures being analysed now."`
	Failed     int  `json:"failed" doc:"Captures whose analysis failed; their text is kept."`
	Waiting    bool `json:"waiting_for_ollama" doc:"True while analysis is paused because the model server cannot be reached (the key keeps its older name)."`
}

// OllamaHealth is what the health check learned of the model server
// ([model]: Ollama or an OpenAI-compatible server, or a pool of them).
type OllamaHealth struct {
	OK           bool             `json:"ok" doc:"Whether the model server answers, has the model and its calls succeed. Set by the health check."`
	Provider     string           `json:"provider,omitempty" enum:"ollama,openai" doc:"The kind of model server ([model] provider): ollama, or openai for any OpenAI-compatible server (llama-server, vLLM, LM Studio, LocalAI)."`
	URL          string           `json:"url" doc:"The model server's URL, without credentials; with a pool, every server's, separated by commas."`
	Reachable    bool             `json:"reachable"`
	Version      string           `json:"version,omitempty"`
	Model        string           `json:"model"`
	ModelPresent bool             `json:"model_present" doc:"Whether the server has the configured model (pulled, for Ollama; listed at /v1/models, for openai)."`
	EmbedModel   string           `json:"embed_model,omitempty" doc:"The configured embedding model, which finds the names and categories nearest to an entry."`
	EmbedPresent bool             `json:"embed_model_present" doc:"Whether the server has the embedding model. Without it, analysis waits once a journal has more than eight names of a kind."`
	Failing      bool             `json:"calls_failing" doc:"True while calls to the model server fail (errors or time-outs), or its answers cannot be used even to a plain check: analysis waits and retries with backoff."`
	Error        string           `json:"error,omitempty" doc:"Why the model server is not usable, and what to do."`
	Endpoints    []EndpointHealth `json:"endpoints,omitempty" doc:"With several model servers (a pool, url listing them), each one's state in the order configured; absent with one. The fields above then describe the pool: it works while one server does."`
}

// EndpointHealth is the state of one model server of a pool.
type EndpointHealth struct {
	URL         string     `json:"url"`
	OK          bool       `json:"ok" doc:"Whether the server answers and has both models."`
	PausedUntil *time.Time `json:"paused_until,omitempty" doc:"Set while the server is paused because its last call failed: it takes calls again from then, and the others take them meanwhile."`
	InFlight    int        `json:"in_flight" doc:"Calls it is answering now."`
	Slots       int        `json:"slots" doc:"Calls it takes at once ([model] workers)."`
	Error       string     `json:"error,omitempty" doc:"Why the server is not usable, and what to do."`
}
