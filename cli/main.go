// Package cli is Recur's command line: the commands, one file per group,
// the configuration they read (recur.toml with RECUR_* overrides) and the
// serve wiring (serve*.go), which starts and stops every part in order.
package cli

import (
	"context"
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
	"sync"
	"syscall"
	"time"
	_ "time/tzdata" // every IANA zone, whatever the host has installed

	"github.com/robfig/cron/v3"

	"github.com/recur-journal/recur/internal/sh"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
)

// Command is the program as main runs it, with the process's arguments
// (args[0] its name) and the version and commit main was linked with, and
// returns its exit status. Run as sh (the container image's /bin/sh), it
// runs recur's own commands only. It ends on SIGINT and SIGTERM.
func Command(args []string, version, commit string) int {
	rest := args[1:]
	if filepath.Base(args[0]) == "sh" {
		var code int
		if rest, code = sh.Recur(rest, os.Stderr); rest == nil {
			return code
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := NewMain()
	m.Version, m.Commit = version, commit
	return m.Exec(ctx, rest)
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
	// Version and Commit are set when linking (main's -X flags), as
	// release builds and the image do: such a build has no git checkout for
	// the Go toolchain to read. Left empty, they come from what the
	// toolchain stamped: a tag such as v1.0.0, or a pseudo-version naming
	// the commit, or "dev" when the build carries none (go run, tests).
	Version, Commit string

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

// Store is the database the command opened, nil before.
func (m *Main) Store() *store.Store { return m.store }

// Events is the bus of the running server's events, nil before serve.
func (m *Main) Events() *journal.Events { return m.events }

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
