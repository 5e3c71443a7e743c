// Package server serves Recur's HTTP API under /api: routing, authentication,
// validation, the list and error envelopes and the OpenAPI document.
package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/server/apidocs"
	"github.com/recur-journal/recur/store"
)

// APIVersion is the version of the interface the OpenAPI document describes.
const APIVersion = "1.0.0"

// DefaultMaxBodyBytes bounds request bodies unless Options says otherwise.
const DefaultMaxBodyBytes = 1 << 20

// Options configures a Server.
type Options struct {
	Store  *store.Store
	Logger *slog.Logger
	// BaseURL is where people reach this server, such as
	// https://journal.example.com: mailed links are made from it alone,
	// never from a request's Host. Empty means it is not known: no link is
	// mailed (a sign-in mail carries a code instead, and a verification
	// mail is refused). Links in API answers come from the request (see
	// proxies.site).
	BaseURL string
	// MaxBodyBytes bounds every request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxImportBytes bounds uploads to POST /captures/import; 0 means
	// DefaultMaxImportBytes.
	MaxImportBytes int64
	// Spool is where uploads to POST /captures/import are copied while
	// they are read; the zero Spool uses the system's temporary folder.
	Spool journal.Spool
	// Health reports the parts beyond the database; nil reports none.
	Health HealthReporter
	// Analyser is told of new and deleted captures; nil tells no one.
	Analyser Analyser
	// Version is the build's version, shown by the health check.
	Version string
	// Mailer sends sign-in mail in the background; nil drops it.
	Mailer Mailer
	// Secret signs links, hashes mailed codes and seals two-factor
	// secrets. It must stay the same across restarts.
	Secret []byte
	// Signup lets an unknown address create an account by asking for a
	// sign-in mail.
	Signup bool
	// SessionLifetime is how long a remembered browser session lasts; 0 means 30 days.
	SessionLifetime time.Duration
	// TokenLifetime is how long a token made by sign-in lasts; 0 means it never expires.
	TokenLifetime time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For and
	// X-Real-IP name the client, for rate limits and the access log; from
	// any other peer those headers are ignored. See ParseTrustedProxies.
	TrustedProxies []netip.Prefix
	// Events carries capture statuses and new patterns to GET
	// /captures/events; nil gives the server a broker of its own, which
	// only the server's own writes publish to.
	Events *journal.Events
	// Heartbeat is how often an idle event stream sends a comment; 0 means
	// DefaultHeartbeat.
	Heartbeat time.Duration
	// Metrics counts requests and is served at GET /metrics; nil serves
	// no metrics.
	Metrics Metrics
	// Notifier registers webhooks; nil gives the server one that refuses
	// private targets and whose deliveries nobody works.
	Notifier *notify.Notifier
}

// Mailer queues a mail for sending.
type Mailer = account.Mailer

// Server is the HTTP API.
type Server struct {
	opts     Options
	api      huma.API
	handler  http.Handler
	mux      *http.ServeMux         // its patterns name routes in the metrics
	docs     func() ([]byte, error) // the rendered reference, made once
	sessions *scs.SessionManager
	accounts *account.Accounts // the rules of sign-in and credentials
	importer *journal.Importer
	origin   string // scheme://host of BaseURL
	captures *journal.Captures

	// Event streams end when streams does (EndStreams).
	streams    context.Context
	endStreams context.CancelFunc
	pages      http.Handler // the web app; see Mount
}

// New builds the API and its routes.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Events == nil {
		opts.Events = journal.NewEvents()
	}
	if opts.Notifier == nil {
		opts.Notifier = notify.New(notify.Options{Store: opts.Store, Logger: opts.Logger})
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxImportBytes <= 0 {
		opts.MaxImportBytes = DefaultMaxImportBytes
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.SessionLifetime <= 0 {
		opts.SessionLifetime = 30 * 24 * time.Hour
	}
	s := &Server{opts: opts}
	s.captures = &journal.Captures{Store: opts.Store, Events: opts.Events, Log: logger}
	if opts.Analyser != nil {
		s.captures.Analyser = opts.Analyser
	}
	s.streams, s.endStreams = context.WithCancel(context.Background())
	if u, err := url.Parse(opts.BaseURL); err == nil && opts.BaseURL != "" {
		s.origin = u.Scheme + "://" + u.Host
	}
	s.sessions = scs.New()
	s.sessions.Store = opts.Store.Sessions()
	s.sessions.Lifetime = opts.SessionLifetime
	s.sessions.Cookie.Name = "recur_session"
	s.sessions.Cookie.HttpOnly = true
	s.sessions.Cookie.SameSite = http.SameSiteLaxMode
	s.sessions.Cookie.Secure = strings.HasPrefix(opts.BaseURL, "https://")
	s.sessions.Cookie.Persist = false // RememberMe decides, at sign-in
	s.sessions.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		if clientGone(r.Context()) {
			return // nobody to answer; the access log says 499
		}
		logger(r.Context()).Error("session", "error", err)
		writeJSONError(w, &apiError{status: http.StatusInternalServerError, Message: statusMessages[http.StatusInternalServerError]})
	}
	s.accounts = account.New(account.Options{Store: opts.Store, Session: cookieSession{m: s.sessions, now: opts.Store.Now},
		Mailer: opts.Mailer, Secret: opts.Secret, BaseURL: opts.BaseURL, Signup: opts.Signup, TokenLifetime: opts.TokenLifetime,
		ClientIP: remoteIP, Log: logger})

	mux := http.NewServeMux()
	config := huma.DefaultConfig("Recur API", APIVersion)
	config.Info.Description = apiDescription
	config.CreateHooks = nil // no $schema links in bodies: the envelope is exactly the spec's
	config.DocsPath = ""     // served by serveDocs, with nothing fetched from elsewhere
	config.SchemasPath = ""
	config.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		securityBearer:  {Type: "http", Scheme: "bearer", Description: securityDescription + "\n\nScopes:\n\n" + scopeTable()},
		securitySession: {Type: "apiKey", In: "cookie", Name: "recur_session", Description: sessionDescription},
	}
	s.api = humago.NewWithPrefix(mux, "/api", config)
	s.docs = sync.OnceValues(func() ([]byte, error) { return apidocs.Render(s.api.OpenAPI()) })
	s.api.UseMiddleware(s.authenticate)

	s.registerHealth()
	s.registerUsers()
	s.registerSettings()
	s.registerFeedback()
	s.registerCaptures()
	s.registerEvents()
	s.registerPatterns()
	s.registerTimeline()
	s.registerSessions()
	s.registerTwoFactor()
	s.registerMagicLinks()
	s.registerVerification()
	s.registerFeatureLocks()
	s.registerImports()
	s.registerApps()
	s.registerWebhooks()
	s.registerChannels()
	s.registerPushSubscriptions()
	s.registerReminders()
	s.registerReviews()
	s.registerPushTokens()
	s.registerBrowserSessions()
	s.registerTokens()
	s.registerAccount()
	s.completeDocument()

	s.routePages(mux)
	if opts.Metrics != nil {
		mux.HandleFunc("GET /metrics", s.serveMetrics)
	}
	s.mux = mux
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, &apiError{status: http.StatusNotFound, Message: "No API route matches " + r.Method + " " + r.URL.Path + "."})
	})
	s.handler = withSecurityHeaders(s.withRequestLog(localizeErrors(limitBodies(s.sessions.LoadAndSave(s.checkOrigin(mux)), opts.MaxBodyBytes, opts.MaxImportBytes))),
		strings.HasPrefix(opts.BaseURL, "https://"))
	return s
}

const apiDescription = `The API of Recur, a private journal that notices what keeps coming back.

Every route is under /api. Send and expect JSON. Every route but the health check and the sign-in routes needs a bearer token (see the security scheme for the scopes) or a signed-in browser session. Unsafe requests on a session are refused when they come from another origin.

A single resource is {data}; a list is {data, links, meta}. Errors are {message}; validation errors (422) add errors, keyed by the field's own name, each a list of sentences. Times are UTC with six fractional digits and a trailing Z. Request bodies are limited to 1 MiB; uploads to POST /captures/import to 64 MiB.`

// Handler returns the HTTP handler of the API.
func (s *Server) Handler() http.Handler { return s.handler }

// Accounts returns the account rules the API follows, for the pages to
// follow too. They work on the browser session of a request this server
// handles (see Mount).
func (s *Server) Accounts() *account.Accounts { return s.accounts }

// Start runs the background workers of the API (sign-in mail). Stop ends them.
func (s *Server) Start() { s.accounts.Start() }

// Stop ends the workers Start began, after the requests already handed to
// them. Call it once the HTTP server has stopped taking requests.
func (s *Server) Stop() { s.accounts.Stop() }

// Mount has every request outside /api served by pages (the web app), inside
// the same session, security-header, body-limit and cross-origin checks as
// the API. Call it once, before serving; without it those paths are 404.
func (s *Server) Mount(pages http.Handler) { s.pages = pages }

// servePages answers every path the API and its documentation do not own.
func (s *Server) servePages(w http.ResponseWriter, r *http.Request) {
	if s.pages == nil {
		http.NotFound(w, r)
		return
	}
	s.pages.ServeHTTP(w, r)
}

// API returns the Huma API, for tests and the documentation.
func (s *Server) API() huma.API { return s.api }

// op describes an operation: scope "" makes it open to everyone, "*" open
// to any signed-in caller whatever their token's scopes.
func op(method, path, id, tag, summary string, scope account.Scope, errs ...int) huma.Operation {
	o := huma.Operation{
		OperationID: id,
		Method:      method,
		Path:        path,
		Summary:     summary,
		Tags:        []string{tag},
		Errors:      errs,
		// The body limit is enforced for every route by limitBodies in New;
		// Huma's own per-operation limit is turned off.
		MaxBodyBytes: -1,
	}
	switch scope {
	case "":
	case account.ScopeAll:
		o.Security = []map[string][]string{{securityBearer: {}}, {securitySession: {}}}
		o.Description = "Needs a signed-in session or any token."
	default:
		o.Security = []map[string][]string{{securityBearer: {string(scope)}}, {securitySession: {}}}
		o.Description = "Needs a signed-in session, or a token with the `" + string(scope) + "` scope."
	}
	return o
}

type siteKey struct{}

// link returns the absolute URL of an API path such as /captures, for an
// answer to the request in ctx: on the host that request was sent to.
func link(ctx context.Context, path string) string { return siteOf(ctx) + "/api" + path }

// siteOf is scheme://host of the request, put in the context by withRequestLog.
func siteOf(ctx context.Context) string {
	site, _ := ctx.Value(siteKey{}).(string)
	return site
}

func (s *Server) serveDocs(w http.ResponseWriter, r *http.Request) {
	page, err := s.docs()
	if err != nil {
		logger(r.Context()).Error("render API docs", "error", err)
		writeJSONError(w, &apiError{status: http.StatusInternalServerError, Message: statusMessages[http.StatusInternalServerError]})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page)
}

// writeJSONError writes an error outside Huma, in the same shape.
func writeJSONError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	for k, v := range e.headers {
		w.Header()[k] = v
	}
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(e)
}

// statusClientClosed is the status logged for a request whose client went
// away before its answer was ready, as nginx logs it. It is no server error.
const statusClientClosed = 499

// clientGone reports whether the request's client hung up: net/http cancels
// the request's context when its connection closes. A deadline of our own
// is not this.
func clientGone(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }

// statusRecorder remembers what a handler answered, for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// withRequestLog gives every request an id (kept from X-Request-Id when the
// client sends a sane one), a logger that carries it, and one access-log line.
func (s *Server) withRequestLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if len(id) == 0 || len(id) > 64 || strings.ContainsFunc(id, func(c rune) bool { return c < '!' || c > '~' }) {
			id = rand.Text()[:16]
		}
		w.Header().Set("X-Request-Id", id)
		log := s.opts.Logger.With("request_id", id)
		ip := proxies(s.opts.TrustedProxies).clientIP(r)
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				log.Error("panic", "panic", p)
				if rec.status == 0 {
					writeJSONError(rec, &apiError{status: http.StatusInternalServerError, Message: statusMessages[http.StatusInternalServerError]})
				}
			}
			status := rec.status
			if clientGone(r.Context()) {
				// Whatever was answered, it did not reach the client.
				status = statusClientClosed
			}
			s.observe(r, status, time.Since(start))
			log.Info("request", "method", r.Method, "path", r.URL.Path, "status", status,
				"bytes", rec.bytes, "duration_ms", float64(time.Since(start).Microseconds())/1000, "remote", ip, "peer", r.RemoteAddr)
		}()
		ctx := context.WithValue(context.WithValue(r.Context(), loggerKey{}, log), remoteKey{}, ip)
		ctx = context.WithValue(ctx, originKey{}, r.Header.Get("Origin"))
		ctx = context.WithValue(ctx, siteKey{}, proxies(s.opts.TrustedProxies).site(r))
		ctx = context.WithValue(ctx, userAgentKey{}, r.Header.Get("User-Agent"))
		next.ServeHTTP(rec, r.WithContext(ctx))
	})
}
