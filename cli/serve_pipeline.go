package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
)

// newPipeline makes the analysis pipeline, and its model server's client,
// from the configuration.
func (m *Main) newPipeline(log *slog.Logger) (*pipeline.Pipeline, pipeline.Provider, error) {
	model, err := m.newProvider(m.Config.Model.Timeout.Duration)
	if err != nil {
		return nil, nil, err
	}
	var watcher pipeline.Watcher
	detection := detect.NewDetector(m.store, nil)
	var detector pipeline.Detector = detection
	if m.events != nil { // serving: open pages follow the changes
		watcher = m.events
	}
	if m.hooks.notifier != nil { // serving: webhooks hear of them too
		watcher, detector = m.hooks.notifier.Watch(watcher), m.hooks.notifier.Detect(detector)
	}
	return pipeline.New(pipeline.Options{
		Watcher:   watcher,
		Store:     m.store,
		Model:     m.countModel(model),
		ModelName: m.Config.Model.Name,
		Logger:    log.With("part", "pipeline"),
		Workers:   m.Config.Model.Workers * len(m.Config.Model.URLs()),
		Detector:  m.countDetection(detector),
		Days:      detection, // the wrappers above do not pass it on
	}), model, nil
}

// newProvider is the client of the configured model server, its calls
// bounded by timeout.
func (m *Main) newProvider(timeout time.Duration) (pipeline.Provider, error) {
	providers, err := m.endpoints(timeout)
	if err != nil || len(providers) == 1 {
		return providers[0], err
	}
	urls := m.Config.Model.URLs()
	return pipeline.NewPool(urls, providers, m.Config.Model.Workers, time.Second, time.Minute, m.Logger.With("part", "pipeline")), nil
}

// endpoints are the clients of each configured model server.
func (m *Main) endpoints(timeout time.Duration) ([]pipeline.Provider, error) {
	c := m.Config.Model
	var out []pipeline.Provider
	for _, u := range c.URLs() {
		p, err := pipeline.NewProvider(pipeline.ModelOptions{Provider: c.Provider, URL: u, Model: c.Name, EmbedModel: c.EmbedName,
			APIKey: c.APIKey, Timeout: timeout})
		if err != nil {
			return []pipeline.Provider{nil}, err
		}
		out = append(out, p)
	}
	return out, nil
}

// startupCheckTimeout bounds the start-up look at Ollama, so a server whose
// Ollama is unreachable still starts at once.
const startupCheckTimeout = 3 * time.Second

// reportOllama says in one line, at start-up, when Ollama cannot be reached
// or lacks a model, with the command that fixes it. Recur runs on either
// way: entries wait in the queue until Ollama answers.
func (m *Main) reportOllama(ctx context.Context, ollama pipeline.Provider) {
	ctx, cancel := context.WithTimeout(ctx, startupCheckTimeout)
	defer cancel()
	st := ollama.Check(ctx)
	if st.Problem == "" {
		return
	}
	m.Logger.Warn(st.Problem+" Until then entries are kept and wait for analysis; recur doctor checks again.",
		"ollama_url", st.URL)
}
