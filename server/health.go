package server

import (
	"context"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/health"
)

// HealthReporter tells the health check about the parts beyond the database.
type HealthReporter = health.Reporter

// QueueHealth counts the captures waiting for or under analysis.
type QueueHealth = health.QueueHealth

// OllamaHealth is what the health check learned of the model server.
type OllamaHealth = health.OllamaHealth

// EndpointHealth is the state of one model server of a pool.
type EndpointHealth = health.EndpointHealth

// DatabaseHealth says whether the database answers and takes writes.
type DatabaseHealth struct {
	OK       bool   `json:"ok" doc:"Whether the database answers and the last write found room."`
	DiskFull bool   `json:"disk_full,omitempty" doc:"True while writes fail because the disk is full (they answer 507); reads still work."`
	Error    string `json:"error,omitempty"`
}

// Health is the detailed health check, for a signed-in caller.
type Health struct {
	Status   string         `json:"status" enum:"ok,degraded,failing" doc:"ok: everything works; degraded: entries are kept but analysis waits (the model server unreachable, model missing, calls failing or answers unusable), or the disk is full and nothing new is saved; failing: the database does not answer."`
	Version  string         `json:"version"`
	Database DatabaseHealth `json:"database"`
	Queue    *QueueHealth   `json:"queue,omitempty"`
	Ollama   *OllamaHealth  `json:"ollama,omitempty" doc:"The model server, whichever the provider (the key keeps its older name)."`
}

// PartHealth says whether one part works, and nothing more.
type PartHealth struct {
	OK bool `json:"ok"`
}

// HealthSummary is the open health check: the status and whether each part
// works, without versions, addresses, counts or error texts.
type HealthSummary struct {
	Status   string      `json:"status" enum:"ok,degraded,failing" doc:"ok: everything works; degraded: entries are kept but analysis waits, or the disk is full and nothing new is saved; failing: the database does not answer."`
	Database PartHealth  `json:"database"`
	Queue    *PartHealth `json:"queue,omitempty"`
	Ollama   *PartHealth `json:"ollama,omitempty"`
}

// summary is what anyone may see of h.
func (h Health) summary() HealthSummary {
	s := HealthSummary{Status: h.Status, Database: PartHealth{h.Database.OK}}
	if h.Queue != nil {
		s.Queue = &PartHealth{h.Queue.OK}
	}
	if h.Ollama != nil {
		s.Ollama = &PartHealth{h.Ollama.OK}
	}
	return s
}

type healthInput struct {
	// Read here rather than by authenticate: the route is open, and a
	// credential only adds details.
	Authorization string `header:"Authorization" hidden:"true"`
}

type healthOutput struct {
	Status int
	Body   any // Data[HealthSummary] or Data[Health]
}

const healthDescription = "Open to all. Answers 200 while the database works, even when the model server is down (the body says so), and 503 only when the database fails, so uptime monitors can rely on the status alone.\n\n" +
	"Without a credential the answer is the status and whether each part works (HealthSummary). With a signed-in session or a token with the metrics:read scope (or *), it adds the details (Health): the version, the queue's counts, the model server's kind, address, version and model, each server's state when there are several, and what to do about a problem. Any other token, and one that is invalid, expired or revoked, is not refused here: the caller gets the open answer, as everyone does while the database fails (no credential can be checked then)."

func (s *Server) registerHealth() {
	o := op(http.MethodGet, "/health-check", "health-check", "Health", "Report whether Recur and its parts work", "")
	o.Description = healthDescription
	// Anyone may call; a credential is optional.
	o.Security = []map[string][]string{{}, {securityBearer: {}}, {securitySession: {}}}
	reg := s.api.OpenAPI().Components.Schemas
	oneOf := func() map[string]*huma.MediaType {
		return map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{OneOf: []*huma.Schema{
			reg.Schema(reflect.TypeFor[Data[HealthSummary]](), true, "DataHealthSummary"),
			reg.Schema(reflect.TypeFor[Data[Health]](), true, "DataHealth"),
		}}}}
	}
	o.Responses = map[string]*huma.Response{
		"200": {Description: "The database works; the body says how the other parts do.", Content: oneOf()},
		"503": {Description: "The database does not answer.", Content: oneOf()},
	}
	huma.Register(s.api, o, s.healthCheck)
}

func (s *Server) healthCheck(ctx context.Context, in *healthInput) (*healthOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	h := Health{Status: "ok", Version: s.opts.Version, Database: DatabaseHealth{OK: true}}
	status := http.StatusOK
	if err := s.opts.Store.Ping(ctx); err != nil {
		if !clientGone(ctx) {
			logger(ctx).Error("health check: database", "error", err)
		}
		h.Database = DatabaseHealth{OK: false, Error: err.Error()}
		h.Status, status = "failing", http.StatusServiceUnavailable
	} else if s.opts.Store.DiskFull() {
		// Reads still work, so monitors get 200; but nothing new is saved.
		h.Database = DatabaseHealth{OK: false, DiskFull: true, Error: diskFullAdvice}
		h.Status = "degraded"
	}
	if r := s.opts.Health; r != nil {
		q, err := r.QueueHealth(ctx)
		if err != nil {
			if !clientGone(ctx) {
				logger(ctx).Warn("health check: queue", "error", err)
			}
			q = QueueHealth{}
		} else {
			q.OK = !q.Waiting
		}
		h.Queue = &q
		o := r.OllamaHealth(ctx)
		o.OK = o.Reachable && o.ModelPresent && !o.Failing
		h.Ollama = &o
		if (!o.OK || !q.OK) && h.Status == "ok" {
			h.Status = "degraded"
		}
	}
	if p, err := s.resolve(ctx, in.Authorization); err != nil || (p.Token != nil && !p.Token.Can(string(account.ScopeMetricsRead))) {
		return &healthOutput{Status: status, Body: Data[HealthSummary]{Data: h.summary()}}, nil
	}
	return &healthOutput{Status: status, Body: Data[Health]{Data: h}}, nil
}

// diskFullAdvice is the health check's word on a write that found no room.
const diskFullAdvice = "The disk holding the database is full: entries and changes cannot be saved. Free some space; the check says ok again once a write succeeds."
