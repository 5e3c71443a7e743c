package server

import (
	"net/http"
	"slices"
	"time"

	"github.com/recur-journal/recur/account"
)

// Metrics is what the server counts its requests with and serves at
// GET /metrics. *metrics.Metrics is the real one.
type Metrics interface {
	// ObserveRequest counts one answered request under its route pattern.
	ObserveRequest(route string, status int, d time.Duration)
	// Handler serves the metrics in the Prometheus text format.
	Handler() http.Handler
}

// unmatchedRoute is the route label of a request no pattern matched.
const unmatchedRoute = "unmatched"

// routeOf is the pattern of the mux that serves r, such as
// "GET /api/captures/{id}": never the raw path, so the metrics' series stay
// few however many ids and typos are requested.
func (s *Server) routeOf(r *http.Request) string {
	if _, pattern := s.mux.Handler(r); pattern != "" {
		return pattern
	}
	return unmatchedRoute
}

// observe counts a request that was answered with status.
func (s *Server) observe(r *http.Request, status int, d time.Duration) {
	if s.opts.Metrics != nil {
		s.opts.Metrics.ObserveRequest(s.routeOf(r), status, d)
	}
}

// serveMetrics serves GET /metrics, outside /api and so outside Huma, to
// the server's owner alone: a token that carries metrics:read by name, which
// only the command line makes. The metrics are the whole instance's, so a
// user's session, a token with "*" and an app's token are refused.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	p, err := s.resolve(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		writeJSONError(w, toAPIError(r.Context(), err))
		return
	}
	if p.Token == nil || p.Token.App || !slices.Contains(p.Token.Scopes, string(account.ScopeMetricsRead)) {
		writeJSONError(w, &apiError{status: http.StatusForbidden, Message: "The metrics are the server owner's: they need a token with the " +
			string(account.ScopeMetricsRead) + " scope, made with recur token create EMAIL --scopes " + string(account.ScopeMetricsRead) + ", or [metrics] addr."})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.opts.Metrics.Handler().ServeHTTP(w, r)
}
