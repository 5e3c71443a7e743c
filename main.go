// Command recur is a private journal that notices what keeps coming back.
// One binary serves the API and the web app, keeps everything in one SQLite
// file and reads each entry with a local model served by Ollama.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	_ "time/tzdata" // every IANA zone, whatever the host has installed

	"github.com/robfig/cron/v3"

	"github.com/recur-journal/recur/internal/sh"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/server/mail"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/web"
)

func main() {
	args := os.Args[1:]
	if filepath.Base(os.Args[0]) == "sh" {
		// The container image's /bin/sh: it runs recur's own commands only.
		var code int
		if args, code = sh.Recur(args, os.Stderr); args == nil {
			os.Exit(code)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := NewMain().Exec(ctx, args)
	stop()
	os.Exit(code)
}

// Exec runs the command line args to its end and returns the exit status:
// 0 when it worked (help included), 2 for a usage error (an unknown
// command or flag, a missing argument), 1 when the command failed.
func (m *Main) Exec(ctx context.Context, args []string) int {
	if err := m.ParseFlags(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(m.Stderr, "recur:", err)
		return 2
	}
	// The server reloads its configuration on SIGHUP, from its first
	// moment; the other commands end on it, as programs do.
	hup := make(chan os.Signal, 1)
	if m.reloads {
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
	}
	restrictUmask()
	err := m.Run(ctx)
	if err == nil && m.Serving() {
		m.Wait(ctx, hup)
		m.Logger.Info("shutting down", "signal", "received")
	}
	if cerr := m.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(m.Stderr, "recur:", err)
		return 1
	}
	return 0
}

// Main is the program: its configuration, its parts and the command it runs.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Env    []string

	Config     Config
	ConfigPath string
	Logger     *slog.Logger
	logs       *logSwitch // the Logger's level and format, which a reload sets
	reloadMu   sync.Mutex // one Reload at a time
	// reloads is set for serve, which reloads its configuration on SIGHUP.
	reloads bool
	// Now is the clock the store and everything over it run by; nil means
	// time.Now.
	Now func() time.Time

	command    func(ctx context.Context) error
	store      *store.Store
	pipeline   *pipeline.Pipeline
	mail       *mail.Queue
	sender     *mailSwitch // the queue's sender, which a reload sets
	api        *server.Server
	events     *journal.Events // while serving
	cron       *cron.Cron
	http       *http.Server
	ln         net.Listener
	serveCh    chan error
	jobsCancel context.CancelFunc

	// mayCreateDB is set for serve and migrate, the commands that may make
	// a new database; the others refuse to run without one.
	mayCreateDB bool

	ops   opsParts  // metrics and scheduled backups, while serving
	hooks hookParts // webhook deliveries, while serving

	notify       *notifier // systemd's notify socket, while serving under it
	stopWatchdog func()
}

// NewMain returns a Main wired to the process's standard streams and environment.
func NewMain() *Main {
	return &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Env: os.Environ(), Config: DefaultConfig()}
}

// Serving reports whether Run started the server.
func (m *Main) Serving() bool { return m.http != nil }

// Addr is the address the server listens on, once serving.
func (m *Main) Addr() string {
	if m.ln == nil {
		return ""
	}
	return m.ln.Addr().String()
}

// Run runs the parsed command. For serve it returns once the server
// listens; Close stops it.
func (m *Main) Run(ctx context.Context) error {
	return m.command(ctx)
}

// loadConfig reads the configuration and sets up logging.
func (m *Main) loadConfig() error {
	cfg, err := m.readConfig()
	if err != nil {
		return err
	}
	m.Config = cfg
	if needsRoots(cfg) {
		installFallbackRoots()
	}
	m.logs = newLogSwitch(m.Stderr, cfg.Log)
	m.Logger = m.logs.Logger()
	if cfg.Deprecated != "" {
		m.Logger.Warn(cfg.Deprecated)
	}
	return nil
}

// readConfig reads --config FILE, or ./recur.toml when there is one, and
// the environment.
func (m *Main) readConfig() (Config, error) {
	path, required := m.ConfigPath, true
	if path == "" {
		path, required = "recur.toml", false
	}
	return LoadConfig(path, required, m.Env)
}

// openStore loads the configuration, opens the database and, when migrate
// is set, brings its schema up to date.
func (m *Main) openStore(ctx context.Context, migrate bool) error {
	if err := m.loadConfig(); err != nil {
		return err
	}
	if err := m.checkDBExists(); err != nil {
		return err
	}
	if err := m.Config.prepareDataDir(); err != nil {
		return err
	}
	if err := m.secureDataDir(); err != nil {
		return err
	}
	s, err := store.Open(store.Options{Path: m.Config.DBPath(), Migrations: migrations.FS, Now: m.Now})
	if err != nil {
		return err
	}
	m.store = s
	if migrate {
		applied, err := s.Migrate(ctx)
		if err != nil {
			return err
		}
		if len(applied) > 0 {
			m.Logger.Info("database migrated", "path", m.Config.DBPath(), "applied", applied)
		}
	}
	return nil
}

// serve opens everything and starts the HTTP server.
func (m *Main) serve(ctx context.Context) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	m.events = journal.NewEvents()
	m.newNotifier()
	m.newMetrics()
	p, ollama, err := m.newPipeline(m.Logger)
	if err != nil {
		return err
	}
	m.pipeline = p
	if err := m.pipeline.Start(ctx); err != nil {
		return err
	}
	if err := m.startJobs(ctx); err != nil {
		return err
	}
	secret, err := loadSecret(m.Config.Storage.DataDir)
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
		Version:         version,
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
	srv.Mount(web.New(web.Options{Store: m.store, Accounts: srv, Analyser: m.pipeline, Events: m.events, Health: reporter, Logger: m.Logger,
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
		"data_dir", m.Config.Storage.DataDir, "version", version)
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
	return server.OllamaHealth{URL: st.URL, Reachable: st.Reachable, Version: st.Version,
		Model: st.Model, ModelPresent: st.ModelPresent, EmbedModel: st.EmbedModel, EmbedPresent: st.EmbedModelPresent,
		Error: st.Problem, Failing: out.Failing, Endpoints: endpoints}
}

// secretFile is the instance's secret inside the data folder.
const secretFile = "secret.key"

// loadSecret reads the instance's secret from the data folder, making it on
// first start. It signs links and sessions' codes and seals two-factor
// secrets: losing it signs everyone out and turns two-factor off.
func loadSecret(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, secretFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, secretText(key), 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return key, nil
	} else if err != nil {
		return nil, err
	}
	key, ok := parseSecret(b)
	if !ok {
		return nil, fmt.Errorf("%s is not a secret Recur made; move it away to make a new one (everyone will have to sign in again)", path)
	}
	return key, nil
}

// secretText is how a secret is written to secret.key: hex and a newline.
func secretText(key []byte) []byte { return []byte(hex.EncodeToString(key) + "\n") }

// parseSecret reads the contents of secret.key: at least 32 bytes in hex.
func parseSecret(b []byte) ([]byte, bool) {
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	return key, err == nil && len(key) >= 32
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
