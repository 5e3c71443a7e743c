package server

import (
	"net/http"
	"time"
)

// scopeMetricsRead is the scope that lets a token read GET /metrics.
const scopeMetricsRead = "metrics:read"

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

// serveMetrics serves GET /metrics, outside /api and so outside Huma, to a
// signed-in session or a token with the metrics:read scope.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	p, err := s.resolve(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		writeJSONError(w, toAPIError(r.Context(), err))
		return
	}
	if p.Token != nil && !p.Token.Can(scopeMetricsRead) {
		writeJSONError(w, &apiError{status: http.StatusForbidden, Message: "This token lacks the " + scopeMetricsRead + " scope."})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.opts.Metrics.Handler().ServeHTTP(w, r)
}
