package web

import (
	"context"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/health"
	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/store"
)

// Analyser is the analysis pipeline as the pages see it: the same one the
// journal's domain code tells of new, changed and deleted entries.
type Analyser = journal.Analyser

// DefaultPageSize is how many entries the journal shows on a page.
const DefaultPageSize = 30

// Options configures the app.
type Options struct {
	Store *store.Store
	// Accounts are the rules of sign-in and of the account, the same the
	// API follows. They work on the browser session of the request, so the
	// app must run inside the API server's session (server.Server.Mount).
	Accounts *account.Accounts
	// Analyser is told of new, changed and deleted captures; nil tells no one.
	Analyser Analyser
	// Events carries capture statuses to the pages a user has open (through
	// the API's event stream); nil publishes nothing.
	Events *journal.Events
	// Health is the same reporter the API's health check uses; the pages
	// show a banner when the model server cannot be used. Nil shows none.
	Health health.Reporter
	Logger *slog.Logger
	// MailLogs says mail goes to the server's log (no SMTP server is set):
	// the sign-in page tells where the link is.
	MailLogs bool
	// NoMailedLinks says no sign-in link can be mailed ([server] base_url
	// is not set and the server listens beyond loopback): the sign-in page
	// says so, and its link form mails a code instead.
	NoMailedLinks bool
	// PageSize is how many entries a journal page lists; 0 means DefaultPageSize.
	PageSize int
	// Importer reads uploads from the data page; pass the API's
	// (server.Server.Importer) so both share one limit. Nil makes one of
	// the app's own.
	Importer *journal.Importer
	// Notifier builds the weekly reviews; nil makes one of the app's own.
	Notifier *notify.Notifier
	// Base is the path the app is served under, without a trailing slash
	// ("/journal" for base_url https://home.example/journal), or "" at the
	// root. The pages' links, forms and scripts name their URLs under it.
	Base string
}

// App serves the pages. It is an http.Handler, meant to be mounted by the
// API server (server.Server.Mount) so it runs inside its session and
// security middleware.
type App struct {
	opts     Options
	captures *journal.Captures // the same rules the API's capture routes follow
	importer *journal.Importer
	mux      *http.ServeMux
	// pages parses the templates of a language on first use: a server that
	// only answers the API and health checks never holds them.
	pages  map[string]func() map[string]*template.Template
	banner bannerCache
}

// New builds the app. Its templates are parsed when a page is first
// rendered; a broken template panics then, since it is part of the binary.
func New(opts Options) *App {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	a := &App{opts: opts, mux: http.NewServeMux(), pages: map[string]func() map[string]*template.Template{},
		captures: &journal.Captures{Store: opts.Store, Analyser: opts.Analyser, Events: opts.Events,
			Log: func(context.Context) *slog.Logger { return opts.Logger }}}
	for _, lang := range append(i18n.Languages(), i18n.Pseudo) {
		a.pages[lang] = sync.OnceValue(func() map[string]*template.Template { return parsePages(opts.Base, i18n.For(lang)) })
	}
	a.importer = opts.Importer
	if a.importer == nil {
		a.importer = journal.NewImporter(opts.Store, journal.MaxImportsAtOnce)
	}
	a.routes()
	return a
}

// parsePages parses every page's template with the layout, by page name,
// speaking loc's language; {{base}} in them is base, the path the app is
// served under.
func parsePages(base string, loc *i18n.Locale) map[string]*template.Template {
	names, err := fs.Glob(FS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	fm := template.FuncMap{"base": func() string { return base }, "static": func(name string) string { return assetPath(base, name) }}
	for k, v := range funcs(loc) {
		fm[k] = v
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		page := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if page == "layout" {
			continue
		}
		pages[page] = template.Must(template.New("layout.html").Funcs(fm).ParseFS(FS, "templates/layout.html", name))
	}
	return pages
}

func (a *App) routes() {
	a.mux.HandleFunc("GET /static/{name}", a.serveStatic)
	a.mux.HandleFunc("GET /static/{version}/{name}", a.serveStatic)
	a.mux.HandleFunc("GET /static/", a.notFound) // no listings of the folder: only the files the pages name
	a.mux.HandleFunc("GET /manifest.webmanifest", a.serveFile("static/manifest.webmanifest", "application/manifest+json"))
	a.mux.HandleFunc("GET /sw.js", a.serveFile("static/sw.js", "text/javascript; charset=utf-8"))
	a.mux.HandleFunc("GET /offline", a.offline)
	a.mux.HandleFunc("GET /{$}", a.home)
	a.mux.HandleFunc("POST /sign-in", a.signIn)
	a.mux.HandleFunc("POST /sign-in/code", a.mailCode)
	a.mux.HandleFunc("POST /sign-in/code/check", a.signInWithCode)
	a.mux.HandleFunc("POST /sign-in/password", a.signInWithPassword)
	a.mux.HandleFunc("POST /sign-in/two-factor", a.secondFactor)
	a.mux.HandleFunc("POST /sign-out", a.signOut)
	a.mux.HandleFunc("POST /entries", a.signedIn(a.createEntry))
	a.mux.HandleFunc("GET /entries/{id}", a.signedIn(a.showEntry))
	a.mux.HandleFunc("POST /entries/{id}", a.signedIn(a.editEntry))
	a.mux.HandleFunc("POST /entries/{id}/delete", a.signedIn(a.deleteEntry))
	a.mux.HandleFunc("POST /entries/{id}/retry", a.signedIn(a.retryEntry))
	a.mux.HandleFunc("GET /patterns", a.signedIn(a.listPatterns))
	a.mux.HandleFunc("GET /patterns/{id}", a.signedIn(a.showPattern))
	a.mux.HandleFunc("POST /patterns/{id}", a.signedIn(a.reviewPattern))
	a.mux.HandleFunc("POST /patterns/{id}/correlations/{cid}", a.signedIn(a.reviewCorrelation))
	a.mux.HandleFunc("GET /calendar", a.signedIn(a.calendar))
	a.mux.HandleFunc("GET /feelings", a.signedIn(a.feelingsPage))
	a.mux.HandleFunc("GET /settings", a.signedIn(a.settings))
	a.mux.HandleFunc("POST /settings", a.signedIn(a.saveSettings))
	a.mux.HandleFunc("POST /settings/verification", a.signedIn(a.resendVerification))
	a.securityRoutes()
	a.mux.HandleFunc("GET /settings/apps", a.signedIn(a.apps))
	a.mux.HandleFunc("POST /settings/apps", a.signedIn(a.createApp))
	a.mux.HandleFunc("POST /settings/apps/{id}", a.signedIn(a.updateApp))
	a.mux.HandleFunc("POST /settings/apps/{id}/delete", a.signedIn(a.deleteApp))
	a.mux.HandleFunc("GET /settings/data", a.signedIn(a.data))
	a.reviewRoutes()
	a.notificationRoutes()
	a.mux.HandleFunc("POST "+ImportPath, a.signedIn(a.importData))
	a.mux.HandleFunc("/", a.notFound)
}

// ServeHTTP serves the pages.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// viewer is the signed-in person a page is rendered for.
type viewer struct {
	User *store.User
	Loc  *time.Location
	Lang *i18n.Locale // their app_locale
	// AppLocale is the app_locale as set, also where the pages speak
	// English for want of a catalogue: pattern names and descriptions
	// are written in it.
	AppLocale string
	Today     string // the date in Loc by the server's clock, YYYY-MM-DD: the latest a date picker offers
}

type viewerKey struct{}

func viewerOf(r *http.Request) *viewer { v, _ := r.Context().Value(viewerKey{}).(*viewer); return v }

// signedIn runs h for a signed-in person and sends anyone else to the
// sign-in page at /.
func (a *App) signedIn(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := a.viewer(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if v == nil {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
	}
}

// viewer returns who is signed in on r's session, or nil.
func (a *App) viewer(r *http.Request) (*viewer, error) {
	id := a.opts.Accounts.SessionUser(r.Context())
	if id == "" {
		return nil, nil
	}
	u, err := a.opts.Store.FindUserByID(r.Context(), id)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return nil, nil // the account is gone: signed out
	} else if err != nil {
		return nil, err
	}
	loc, err := a.opts.Store.Location(r.Context(), u.ID)
	if err != nil {
		return nil, err
	}
	tag, err := a.opts.Store.SettingValue(r.Context(), u.ID, store.SettingAppLocale)
	if err != nil {
		return nil, err
	}
	return &viewer{User: u, Loc: loc, Lang: i18n.For(tag), AppLocale: tag, Today: a.opts.Store.Now().In(loc).Format(time.DateOnly)}, nil
}

// locale is the language a page speaks: the signed-in person's app_locale,
// or before sign-in the one the browser asks for.
func (a *App) locale(r *http.Request) *i18n.Locale {
	if v := viewerOf(r); v != nil {
		return v.Lang
	}
	return i18n.FromAcceptLanguage(r.Header.Get("Accept-Language"))
}

// pageLang is the language of a page rendered for v: theirs, or with
// no one signed in the request's.
func (a *App) pageLang(r *http.Request, v *viewer) *i18n.Locale {
	if v != nil {
		return v.Lang
	}
	return a.locale(r)
}

// t says the message key in the request's language.
func (a *App) t(r *http.Request, key string, args ...any) string { return a.locale(r).T(key, args...) }

// page is what the layout needs besides the page's own data.
type page struct {
	Title  string
	Nav    string // which nav link is the current page
	Viewer *viewer
	Banner *banner
	Data   any
	// Lang is the language the page speaks; render sets it.
	Lang *i18n.Locale
}

// render writes the page template name with status.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if p.Viewer == nil {
		p.Viewer = viewerOf(r)
	}
	if p.Viewer != nil && p.Banner == nil {
		p.Banner = a.banner.get(r.Context(), a.opts.Health, p.Viewer.Lang)
	}
	p.Lang = a.pageLang(r, p.Viewer)
	var b strings.Builder
	if err := a.pages[p.Lang.Lang]()[name].Execute(&b, p); err != nil {
		a.opts.Logger.ErrorContext(r.Context(), "render page", "page", name, "error", err)
		http.Error(w, "Server error.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(b.String()))
}

// notFound answers 404 with a page, for a path nobody serves and for a
// record that does not exist or is another person's.
func (a *App) notFound(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	if v == nil { // a path nobody serves: no page has read who is signed in
		v, _ = a.viewer(r)
	}
	a.render(w, r, http.StatusNotFound, "notfound", page{Title: a.pageLang(r, v).T("Not found"), Viewer: v})
}

// fail answers an error from domain code: not found is the 404 page, bad
// input the 422 page with its sentence, anything else a logged 500.
func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch store.ErrorCode(err) {
	case store.ENOTFOUND:
		a.notFound(w, r)
	case store.EINVALID:
		var e *store.Error
		errors.As(err, &e)
		a.render(w, r, http.StatusUnprocessableEntity, "invalid", page{Title: a.t(r, "Please check"), Data: e})
	default:
		if errors.Is(r.Context().Err(), context.Canceled) {
			return
		}
		a.opts.Logger.ErrorContext(r.Context(), "page", "path", r.URL.Path, "error", err)
		a.render(w, r, http.StatusInternalServerError, "error", page{Title: a.t(r, "Something went wrong")})
	}
}

// banner is the model server's problem shown on every page: what is wrong and the
// command that mends it.
type banner struct {
	Heading string // what it means for the entries
	Problem string // one plain sentence
	Command string // what to run, where the model server runs
	Hint    string // what to do, when there is no one command
	Detail  string // the health check's own words, for whoever digs deeper
	// Endpoints are each model server's state, when there are several.
	Endpoints []bannerEndpoint
}

// bannerCache asks the health reporter at most every bannerTTL, so pages
// do not each wait on the model server.
type bannerCache struct {
	mu     sync.Mutex
	at     time.Time
	health health.OllamaHealth
}

const bannerTTL = 3 * time.Second

func (c *bannerCache) get(ctx context.Context, h health.Reporter, loc *i18n.Locale) *banner {
	if h == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) >= bannerTTL {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		c.at, c.health = time.Now(), h.OllamaHealth(ctx)
	}
	return newBanner(c.health, loc)
}
