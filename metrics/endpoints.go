package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recur-journal/recur/pipeline"
)

// WatchEndpoints reports, at each scrape, the state of every model server
// p calls (each endpoint of a pool, or its one server), labelled by the
// server's URL without credentials. Call it once.
func (m *Metrics) WatchEndpoints(p pipeline.Provider) {
	m.reg.MustRegister(newEndpointCollector(p))
}

// endpointCollector checks the model servers at scrape time.
type endpointCollector struct {
	provider pipeline.Provider
	up       *prometheus.Desc
	inFlight *prometheus.Desc
	slots    *prometheus.Desc
	paused   *prometheus.Desc
}

func newEndpointCollector(p pipeline.Provider) *endpointCollector {
	label := []string{"endpoint"}
	return &endpointCollector{provider: p,
		up: prometheus.NewDesc(namespace+"_model_endpoint_up",
			"1 while the model server answers and has the models, else 0.", label, nil),
		inFlight: prometheus.NewDesc(namespace+"_model_endpoint_calls_in_flight",
			"Calls the model server is answering now.", label, nil),
		slots: prometheus.NewDesc(namespace+"_model_endpoint_slots",
			"Calls the model server takes at once ([model] workers); 0 when not known (one server, no pool).", label, nil),
		paused: prometheus.NewDesc(namespace+"_model_endpoint_paused_until_timestamp_seconds",
			"While the model server is paused after a failed call, when it takes calls again, in Unix seconds; 0 when not paused.", label, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *endpointCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.up
	ch <- c.inFlight
	ch <- c.slots
	ch <- c.paused
}

// Collect implements prometheus.Collector.
func (c *endpointCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	for _, e := range pipeline.EndpointStates(ctx, c.provider) {
		up, paused := 0.0, 0.0
		if e.Problem == "" {
			up = 1
		}
		if !e.PausedUntil.IsZero() {
			paused = float64(e.PausedUntil.Unix())
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up, e.URL)
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(e.InFlight), e.URL)
		ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(e.Slots), e.URL)
		ch <- prometheus.MustNewConstMetric(c.paused, prometheus.GaugeValue, paused, e.URL)
	}
}
