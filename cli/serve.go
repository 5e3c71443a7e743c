package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/recur-journal/recur/internal/secretkey"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/web"
)

// serve opens everything and starts the HTTP server.
func (m *Main) serve(ctx context.Context) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	m.events = journal.NewEvents()
	if err := m.newNotifier(); err != nil {
		return err
	}
	m.newMetrics()
	p, ollama, err := m.newPipeline(m.Logger)
	if err != nil {
		return err
	}
	m.pipeline = p
	m.watchEndpoints(ollama)
	if err := m.pipeline.Start(ctx); err != nil {
		return err
	}
	if err := m.startJobs(ctx); err != nil {
		return err
	}
	secret, err := secretkey.Load(m.Config.Storage.DataDir)
	if err != nil {
		return err
	}
	m.sender = &mailSwitch{}
	m.sender.set(m.newSender(m.Config.Mail))
	m.mail = mail.NewQueue(mail.QueueOptions{Sender: m.countMail(m.sender), Logger: m.Logger.With("part", "mail")})
	m.mail.Start()
	spool, err := m.openSpool()
	if err != nil {
		return err
	}
	proxies, _ := server.ParseTrustedProxies(m.Config.Server.TrustedProxies)
	reporter := &health{store: m.store, ollama: ollama, pipeline: m.pipeline}
	srv := server.New(server.Options{
		Store:           m.store,
		Logger:          m.Logger,
		BaseURL:         m.Config.BaseURL(),
		MaxBodyBytes:    m.Config.Server.MaxBodyBytes,
		Spool:           spool,
		Health:          reporter,
		Analyser:        m.pipeline,
		Version:         m.readBuild().Version,
		Mailer:          m.mail,
		Secret:          secret,
		Signup:          m.Config.Auth.Signup,
		SessionLifetime: m.Config.Auth.SessionLifetime.Duration,
		TokenLifetime:   m.Config.Auth.TokenLifetime.Duration,
		TrustedProxies:  proxies, // checked by Validate
		Events:          m.events,
		Metrics:         m.ops.metrics,
		Notifier:        m.hooks.notifier,
	})
	srv.Mount(web.New(web.Options{Store: m.store, Accounts: srv.Accounts(), Analyser: m.pipeline, Events: m.events, Health: reporter, Logger: m.Logger,
		MailLogs: m.Config.Mail.SMTPHost == "", Importer: srv.Importer(), NoMailedLinks: m.Config.BaseURL() == "",
		Base: basePath(m.Config.BaseURL()), Notifier: m.hooks.notifier}))
	m.warnBaseURL()
	srv.Start()
	m.api = srv
	ln, err := net.Listen("tcp", m.Config.Server.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (set [server] addr or RECUR_SERVER_ADDR to another address)", m.Config.Server.Addr, err)
	}
	m.ln = ln
	m.http = &http.Server{
		Handler:           underPrefix(basePath(m.Config.BaseURL()), srv.Handler()),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
	}
	m.http.RegisterOnShutdown(srv.EndStreams) // open event streams would hold the shutdown
	m.serveCh = make(chan error, 1)
	go func() { m.serveCh <- m.http.Serve(ln) }()
	if err := m.serveMetrics(); err != nil {
		return err
	}
	docs := m.Config.BaseURL()
	if docs == "" {
		docs = localURL(ln.Addr())
	}
	m.Logger.Info("recur is listening", "url", localURL(ln.Addr()), "api_docs", docs+"/api/docs/api",
		"data_dir", m.Config.Storage.DataDir, "version", m.readBuild().Version)
	m.startNotify()
	m.startDeliveries()
	m.reportOllama(ctx, ollama)
	return nil
}

// Close stops what Run started, in order: systemd is told and the watchdog
// ends, then HTTP (letting requests in flight finish), then cron, then the
// pipeline's workers (a run cut short goes back to the queue), then the
// mail queue, then the database.
func (m *Main) Close() error {
	var errs []error
	m.stopNotify()
	if m.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), m.Config.Server.ShutdownWait.Duration)
		defer cancel()
		if err := m.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shut down http: %w", err))
		}
		if err := <-m.serveCh; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		m.http = nil
	}
	errs = append(errs, m.stopMetrics())
	if m.api != nil {
		m.api.Stop() // after HTTP: it drains the sign-in mail asked for
		m.api = nil
	}
	m.stopJobs()
	m.stopDeliveries()
	if m.pipeline != nil {
		m.pipeline.Stop()
		m.pipeline = nil
	}
	if m.mail != nil {
		m.mail.Stop()
		m.mail = nil
	}
	if m.store != nil {
		errs = append(errs, m.store.Close())
		m.store = nil
	}
	return errors.Join(errs...)
}

// health tells the health check about Ollama and the queue.
type health struct {
	store    *store.Store
	ollama   pipeline.Provider
	pipeline *pipeline.Pipeline
}

func (h *health) QueueHealth(ctx context.Context) (server.QueueHealth, error) {
	q, err := h.store.QueueCounts(ctx)
	return server.QueueHealth{Workers: h.pipeline.Workers(), Queued: q.Queued, Processing: q.Processing, Failed: q.Failed,
		Waiting: h.pipeline.Waiting()}, err
}

func (h *health) OllamaHealth(ctx context.Context) server.OllamaHealth {
	var st pipeline.Status
	var endpoints []server.EndpointHealth
	if pool, ok := h.ollama.(*pipeline.Pool); ok {
		var states []pipeline.EndpointState
		st, states = pool.CheckEach(ctx)
		for _, e := range states {
			eh := server.EndpointHealth{URL: e.URL, OK: e.Problem == "", InFlight: e.InFlight, Slots: e.Slots, Error: e.Problem}
			if !e.PausedUntil.IsZero() {
				until := e.PausedUntil.UTC()
				eh.PausedUntil = &until
			}
			endpoints = append(endpoints, eh)
		}
	} else {
		st = h.ollama.Check(ctx)
	}
	out := h.pipeline.Outage()
	if out.Failing && st.Problem == "" {
		st.Problem = fmt.Sprintf("Calls to the model server fail since %s (%s). Analysis waits and retries with backoff; nothing is lost.",
			out.Since.UTC().Format(time.RFC3339), out.LastError)
	}
	return server.OllamaHealth{Provider: st.Provider, URL: st.URL, Reachable: st.Reachable, Version: st.Version,
		Model: st.Model, ModelPresent: st.ModelPresent, EmbedModel: st.EmbedModel, EmbedPresent: st.EmbedModelPresent,
		Error: st.Problem, Failing: out.Failing, Endpoints: endpoints}
}

// localURL is the address to open on this machine for a listener on addr:
// one listening on every address (0.0.0.0 or ::) is reached at 127.0.0.1.
func localURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return "http://" + addr.String()
	}
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}
