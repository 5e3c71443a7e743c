package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// HealthReporter tells the health check about the parts beyond the database.
type HealthReporter interface {
	// QueueHealth counts the analysis queue.
	QueueHealth(ctx context.Context) (QueueHealth, error)
	// OllamaHealth says whether the model server answers and has the model.
	OllamaHealth(ctx context.Context) OllamaHealth
}

// QueueHealth counts the captures waiting for or under analysis.
type QueueHealth struct {
	Workers    int  `json:"workers" doc:"Analysis workers; one user's captures go one at a time."`
	Queued     int  `json:"queued" doc:"Captures waiting to be analysed."`
	Processing int  `json:"processing" doc:"Captures being analysed now."`
	Failed     int  `json:"failed" doc:"Captures whose analysis failed; their text is kept."`
	Waiting    bool `json:"waiting_for_ollama" doc:"True while analysis is paused because Ollama cannot be reached."`
}

// OllamaHealth is what the health check learned of Ollama.
type OllamaHealth struct {
	URL          string `json:"url"`
	Reachable    bool   `json:"reachable"`
	Version      string `json:"version,omitempty"`
	Model        string `json:"model"`
	ModelPresent bool   `json:"model_present" doc:"Whether the configured model is pulled."`
	Error        string `json:"error,omitempty" doc:"Why Ollama is not usable, and what to do."`
	Failing      bool   `json:"calls_failing" doc:"True while calls to Ollama fail (errors or time-outs): analysis waits and retries with backoff."`
}

// DatabaseHealth says whether the database answers.
type DatabaseHealth struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Health is the body of the health check.
type Health struct {
	Status   string         `json:"status" enum:"ok,degraded,failing" doc:"ok: everything works; degraded: entries are kept but analysis waits (Ollama unreachable or model missing); failing: the database does not answer."`
	Version  string         `json:"version"`
	Database DatabaseHealth `json:"database"`
	Queue    *QueueHealth   `json:"queue,omitempty"`
	Ollama   *OllamaHealth  `json:"ollama,omitempty"`
}

type healthOutput struct {
	Status int
	Body   Data[Health]
}

func (s *Server) registerHealth() {
	o := op(http.MethodGet, "/health-check", "health-check", "Health", "Report whether Recur and its parts work", "")
	o.Description = "Open to all. Answers 200 while the database works, even when Ollama is down (the body says so), and 503 only when the database fails, so uptime monitors can rely on the status alone."
	o.Responses = map[string]*huma.Response{"503": {Description: "The database does not answer; the body says why."}}
	huma.Register(s.api, o, s.healthCheck)
}

func (s *Server) healthCheck(ctx context.Context, _ *struct{}) (*healthOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	h := Health{Status: "ok", Version: s.opts.Version, Database: DatabaseHealth{OK: true}}
	status := http.StatusOK
	if err := s.opts.Store.Ping(ctx); err != nil {
		logger(ctx).Error("health check: database", "error", err)
		h.Database = DatabaseHealth{OK: false, Error: err.Error()}
		h.Status, status = "failing", http.StatusServiceUnavailable
	}
	if r := s.opts.Health; r != nil {
		if q, err := r.QueueHealth(ctx); err == nil {
			h.Queue = &q
		}
		o := r.OllamaHealth(ctx)
		h.Ollama = &o
		if (!o.Reachable || !o.ModelPresent || o.Failing) && h.Status == "ok" {
			h.Status = "degraded"
		}
	}
	return &healthOutput{Status: status, Body: Data[Health]{Data: h}}, nil
}
