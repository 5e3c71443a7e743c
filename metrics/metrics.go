// Package metrics counts what Recur does and serves it in the Prometheus
// text format: captures by status and the queue, model calls, HTTP requests,
// detection runs and mail. Each Metrics has a registry of its own, so two
// servers in one process (or two tests) never share a count.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/recur-journal/recur/store"
)

// namespace prefixes every metric of Recur's own.
const namespace = "recur"

// scrapeTimeout bounds the database queries one scrape makes.
const scrapeTimeout = 5 * time.Second

// CaptureCounter counts captures at scrape time. *store.Store is the real one.
type CaptureCounter interface {
	CaptureStats(ctx context.Context) (store.CaptureStats, error)
	Now() time.Time
}

var _ CaptureCounter = (*store.Store)(nil)

// detectionBuckets are the detection histogram's bounds, in seconds: written
// out, because computed ones (prometheus.ExponentialBuckets) give labels such
// as le="3.6450000000000005".
var detectionBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// Options configures Metrics.
type Options struct {
	// Captures is read at each scrape; nil leaves out the capture and queue
	// metrics.
	Captures CaptureCounter
	Logger   *slog.Logger
	// Build is what recur_build_info reports.
	Build Build
}

// Build names the running binary: its version, the commit it was built
// from and the Go release that built it.
type Build struct {
	Version, Commit, GoVersion string
}

// Metrics holds Recur's collectors in a registry of their own.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	modelCalls        *prometheus.CounterVec
	modelDuration     *prometheus.HistogramVec
	promptTokens      *prometheus.CounterVec
	outputTokens      *prometheus.CounterVec
	requests          *prometheus.CounterVec
	requestDuration   *prometheus.HistogramVec
	detections        *prometheus.CounterVec
	detectionDuration prometheus.Histogram
	mailSent          prometheus.Counter
	mailFailed        prometheus.Counter
	backupAt          prometheus.Gauge
	backupDuration    prometheus.Gauge
	backupSize        prometheus.Gauge
}

// New makes the collectors and registers them, with the Go runtime's and the
// process's, in a new registry.
func New(opts Options) *Metrics {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "model_calls_total",
			Help: "Calls to the model by analysis step and result (ok, truncated or error)."}, []string{"step", "result"}),
		modelDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "model_call_duration_seconds",
			Help:    "How long calls to the model took, by analysis step.",
			Buckets: []float64{0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 300}}, []string{"step"}),
		promptTokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "model_prompt_tokens_total",
			Help: "Prompt tokens the model read, by analysis step."}, []string{"step"}),
		outputTokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "model_output_tokens_total",
			Help: "Tokens the model wrote, by analysis step."}, []string{"step"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests by route pattern and status code."}, []string{"route", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
			Help: "How long HTTP requests took to answer, by route pattern.", Buckets: prometheus.DefBuckets}, []string{"route"}),
		detections: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "detection_runs_total",
			Help: "Pattern detection runs (one user each) by result (ok or error)."}, []string{"result"}),
		detectionDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "detection_duration_seconds",
			Help: "How long one detection run took.", Buckets: detectionBuckets}),
		mailSent: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "mail_sent_total",
			Help: "Mails handed to the mail server (or, without one, written to the log)."}),
		mailFailed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "mail_failed_total",
			Help: "Tries to send a mail that failed; the mail queue retries with backoff."}),
		backupAt: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "backup_last_success_timestamp_seconds",
			Help: "When the last scheduled backup was written, in Unix seconds; 0 before the first."}),
		backupDuration: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "backup_last_duration_seconds",
			Help: "How long the last scheduled backup took to write; 0 when not known."}),
		backupSize: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "backup_last_size_bytes",
			Help: "The size of the last scheduled backup's archive, in bytes."}),
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "build_info",
		Help:        "Always 1; its labels name the running binary's version, commit and Go release.",
		ConstLabels: prometheus.Labels{"version": opts.Build.Version, "commit": opts.Build.Commit, "goversion": opts.Build.GoVersion}})
	info.Set(1)
	m.reg.MustRegister(info, m.backupAt, m.backupDuration, m.backupSize, m.modelCalls, m.modelDuration, m.promptTokens, m.outputTokens, m.requests, m.requestDuration,
		m.detections, m.detectionDuration, m.mailSent, m.mailFailed,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if opts.Captures != nil {
		m.reg.MustRegister(newCaptureCollector(opts.Captures, opts.Logger))
	}
	// ContinueOnError: a scrape during a database hiccup still gives every
	// other metric.
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler { return m.handler }

// Registry is the registry the metrics live in, for tests.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveRequest counts one HTTP request. route must be the pattern that
// matched it, never the raw path, so that the number of series stays bounded.
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.requestDuration.WithLabelValues(route).Observe(d.Seconds())
}

// ObserveBackup records a backup written at at, which took d and made an
// archive of size bytes. A zero d leaves the duration at 0: not known, as for
// an archive found on disk at start.
func (m *Metrics) ObserveBackup(at time.Time, d time.Duration, size int64) {
	m.backupAt.Set(float64(at.Unix()))
	m.backupDuration.Set(d.Seconds())
	m.backupSize.Set(float64(size))
}

// captureCollector reads the capture counts from the database at scrape
// time, so they are right however the captures changed (another process
// such as recur import included).
type captureCollector struct {
	counter  CaptureCounter
	log      *slog.Logger
	byStatus *prometheus.Desc
	depth    *prometheus.Desc
	oldest   *prometheus.Desc
}

func newCaptureCollector(c CaptureCounter, log *slog.Logger) *captureCollector {
	return &captureCollector{counter: c, log: log,
		byStatus: prometheus.NewDesc(namespace+"_captures", "Captures by status, across all users.", []string{"status"}, nil),
		depth:    prometheus.NewDesc(namespace+"_queue_depth", "Captures waiting in the queue for analysis.", nil, nil),
		oldest: prometheus.NewDesc(namespace+"_queue_oldest_age_seconds",
			"How long ago the oldest queued capture was written; 0 when nothing is queued.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *captureCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.byStatus
	ch <- c.depth
	ch <- c.oldest
}

// Collect implements prometheus.Collector.
func (c *captureCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	st, err := c.counter.CaptureStats(ctx)
	if err != nil {
		c.log.Warn("metrics: count captures", "error", err)
		ch <- prometheus.NewInvalidMetric(c.byStatus, err)
		return
	}
	for _, status := range store.CaptureStatuses {
		ch <- prometheus.MustNewConstMetric(c.byStatus, prometheus.GaugeValue, float64(st.ByStatus[status]), string(status))
	}
	ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(st.ByStatus[store.StatusQueued]))
	age := 0.0
	if !st.OldestQueued.IsZero() {
		age = max(0, c.counter.Now().Sub(st.OldestQueued).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age)
}
