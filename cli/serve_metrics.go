package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/recur-journal/recur/backup"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/metrics"
	"github.com/recur-journal/recur/pipeline"
)

// MetricsConfig is the [metrics] section.
type MetricsConfig struct {
	// Addr, when set, serves GET /metrics there without authentication, for
	// a Prometheus on the same machine or LAN. Keep it off the internet.
	Addr string `toml:"addr"`
}

// validate checks the [metrics] section.
func (c MetricsConfig) validate() error {
	if c.Addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return &ConfigError{Source: "value", Key: "metrics.addr", Reason: fmt.Sprintf("%q is not host:port, like 127.0.0.1:9090", c.Addr)}
	}
	return nil
}

// opsParts are the parts of a serving Main that look after it: metrics and
// scheduled backups.
type opsParts struct {
	metrics     *metrics.Metrics
	metricsHTTP *http.Server
	metricsLn   net.Listener
	metricsCh   chan error
	backups     *backup.Scheduled
}

// newMetrics makes the metrics of a serving Main: the collectors, counting
// from the database at scrape time.
func (m *Main) newMetrics() {
	b := m.readBuild()
	m.ops.metrics = metrics.New(metrics.Options{Captures: m.store, Logger: m.Logger.With("part", "metrics"),
		Build: metrics.Build{Version: b.Version, Commit: b.Commit, GoVersion: cmp.Or(b.GoVersion, runtime.Version())}})
}

// countModel counts the model's calls when metrics are kept.
func (m *Main) countModel(model pipeline.Model) pipeline.Model {
	if m.ops.metrics == nil {
		return model
	}
	return m.ops.metrics.Model(model)
}

// watchEndpoints reports the model servers' states when metrics are kept.
func (m *Main) watchEndpoints(p pipeline.Provider) {
	if m.ops.metrics != nil {
		m.ops.metrics.WatchEndpoints(p)
	}
}

// countDetection counts detection runs when metrics are kept.
func (m *Main) countDetection(d pipeline.Detector) pipeline.Detector {
	if m.ops.metrics == nil {
		return d
	}
	return m.ops.metrics.Detector(d)
}

// countMail counts mail sent and failed when metrics are kept.
func (m *Main) countMail(s mail.Sender) mail.Sender {
	if m.ops.metrics == nil {
		return s
	}
	return m.ops.metrics.Sender(s)
}

// MetricsAddr is the address of the [metrics] addr listener, once serving.
func (m *Main) MetricsAddr() string {
	if m.ops.metricsLn == nil {
		return ""
	}
	return m.ops.metricsLn.Addr().String()
}

// serveMetrics serves GET /metrics on [metrics] addr, when it is set,
// without authentication: anyone who reaches that address reads the metrics.
func (m *Main) serveMetrics() error {
	addr := m.Config.Metrics.Addr
	if addr == "" || m.ops.metrics == nil {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (set [metrics] addr or RECUR_METRICS_ADDR to another address)", addr, err)
	}
	mux := http.NewServeMux()
	h := m.ops.metrics.Handler()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
	m.ops.metricsLn = ln
	m.ops.metricsHTTP = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn)}
	m.ops.metricsCh = make(chan error, 1)
	go func() { m.ops.metricsCh <- m.ops.metricsHTTP.Serve(ln) }()
	m.Logger.Info("metrics are served without authentication; keep this address on loopback or the LAN",
		"url", "http://"+ln.Addr().String()+"/metrics")
	return nil
}

// stopMetrics stops the [metrics] addr listener.
func (m *Main) stopMetrics() error {
	if m.ops.metricsHTTP == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := m.ops.metricsHTTP.Shutdown(ctx)
	if serr := <-m.ops.metricsCh; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	m.ops.metricsHTTP, m.ops.metricsLn = nil, nil
	return err
}
