package server

import (
	"context"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/store"
)

// MagicLinkLifetime is how long a mailed or made sign-in link works. A link
// is not used up by opening it: mail scanners open links before people do,
// and a one-use link would be spent by the scanner. It works, any number of
// times, until it expires.
const MagicLinkLifetime = 15 * time.Minute

// MagicLink is a signed sign-in URL.
type MagicLink struct {
	URL       string    `json:"url" doc:"GET it in a browser to be signed in there; it works for 15 minutes."`
	ExpiresAt Timestamp `json:"expires_at"`
}

// AccessToken is a personal access token made by sign-in.
type AccessToken struct {
	Token     string     `json:"token" doc:"The bearer token, <id>|<secret>; shown this once."`
	ID        string     `json:"id" format:"uuid"`
	Name      string     `json:"name"`
	Scopes    []string   `json:"scopes"`
	ExpiresAt *Timestamp `json:"expires_at" nullable:"true"`
	CreatedAt Timestamp  `json:"created_at"`
}

// LoginResult answers a link sign-in to a JSON client.
type LoginResult struct {
	TwoFactor bool   `json:"two_factor" doc:"True when the session waits for POST /two-factor-challenge."`
	Path      string `json:"path" doc:"The screen to go to."`
}

type magicMailInput struct {
	Body struct {
		Email string `json:"email" minLength:"1" maxLength:"255"`
	}
}

type magicTokenInput struct {
	Body struct {
		Email         string `json:"email" maxLength:"255"`
		Code          string `json:"code" maxLength:"64" doc:"The code from the mail."`
		DeviceName    string `json:"device_name,omitempty" maxLength:"255" doc:"Names the token, such as the phone it is for."`
		TwoFactorCode string `json:"two_factor_code,omitempty" maxLength:"16" doc:"With two-factor on: the authenticator's code."`
		RecoveryCode  string `json:"recovery_code,omitempty" maxLength:"64" doc:"With two-factor on: a recovery code instead."`
	}
}

type magicMeInput struct {
	Body struct {
		Path     string `json:"path,omitempty" maxLength:"255" pattern:"^/([^/\\\\].*)?$" doc:"The screen to land on: a path on this app, starting with a single slash, at most 255 characters, with no backslash or control character, written or percent-encoded (422 otherwise). Default /."`
		ReturnTo string `json:"return_to,omitempty" format:"uri" doc:"Where to go back to afterwards: a URL on this app's own origin."`
	}
}

type magicLoginInput struct {
	UserUUID  string `query:"user_uuid" required:"true" format:"uuid" doc:"The user's id."`
	Path      string `query:"path" required:"true" doc:"The screen to land on: at most 255 characters, starting with a single slash not followed by another, with no backslash or control character, written or percent-encoded."`
	ReturnTo  string `query:"return_to" format:"uri" doc:"Optional: a URL on this app's own origin."`
	Expires   int64  `query:"expires" required:"true" doc:"The link's expiry, Unix seconds."`
	Signature string `query:"signature" required:"true" minLength:"1" doc:"The link's signature."`
	Accept    string `header:"Accept" doc:"application/json for a 200 JSON answer instead of the redirect."`
}

type magicLoginOutput struct {
	Status   int
	Location string `header:"Location"`
	Body     *Data[LoginResult]
}

func (s *Server) registerMagicLinks() {
	o := op(http.MethodPost, "/magic-links/mails", "send-magic-link", "Sign-in", "Mail a sign-in link or code", "",
		http.StatusUnprocessableEntity, http.StatusTooManyRequests)
	o.DefaultStatus = http.StatusNoContent
	o.Description = "Open. Answers 204 to every well-formed address, known or not, in about the same time. " +
		"A browser on this app (it has a session, or sends this app's Origin) gets a link into the app; any other caller, " +
		"such as the native app, gets a six-digit code for POST /magic-links/tokens. Codes work once, for 10 minutes, 5 tries; links for 15 minutes."
	huma.Register(s.api, o, s.sendMagicLink)

	o = op(http.MethodPost, "/magic-links/tokens", "exchange-magic-code", "Sign-in", "Exchange a mailed code for a token", "",
		http.StatusUnprocessableEntity, http.StatusTooManyRequests)
	o.Description = "Open. Answers a personal access token with every scope. Every failure (unknown address, wrong, used or expired code, " +
		"an account that may not sign in) is the same 422 under code. With two-factor on, send two_factor_code or recovery_code too."
	huma.Register(s.api, o, s.exchangeMagicCode)

	o = op(http.MethodPost, "/magic-links/me", "make-magic-link", "Sign-in", "Make a sign-in link for yourself", "*",
		http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.Description = "Needs a signed-in session, or a token with every scope (`*`): the link opens a browser session, which carries every scope, " +
		"so a token with fewer gets 403 naming `*`. For handing a signed-in app over to a browser: the link signs the browser in as you and lands on path."
	huma.Register(s.api, o, s.makeMagicLink)

	o = op(http.MethodGet, "/magic-links/login", "magic-link-login", "Sign-in", "Sign in by link", "",
		http.StatusForbidden, http.StatusUnprocessableEntity)
	o.Description = "Open. A missing or malformed user_uuid, expires or signature answers 422; then the signature and expiry are checked (403), then path and return_to (422). Signs the browser in and redirects (302) to path " +
		"(with return_to passed on), or answers 200 JSON to a client that accepts application/json. Signing in by mail verifies the address."
	o.Responses = map[string]*huma.Response{"302": {Description: "Signed in; Location is the screen named by path."}}
	huma.Register(s.api, o, s.magicLogin)
	// Described here and checked by the handler, after the signature: nothing
	// about a link is looked at before it proves it was made here.
	s.describeParam(o.Path, o.Method, "path", func(p *huma.Schema) {
		p.MinLength, p.MaxLength, p.Pattern = new(1), new(255), `^/([^/\\].*)?$`
	})
}

// validEmail normalises an address (store.NormaliseEmail) and checks it
// the way the mail routes need.
func validEmail(email string) (string, error) {
	email = store.NormaliseEmail(email)
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email {
		return "", invalid("email", "The email must be a valid email address, like name@example.com.")
	}
	return email, nil
}

// sendMagicLink does the same work for every well-formed address on the
// request path; the rest is the sign-in workers' (signinmail.go).
func (s *Server) sendMagicLink(ctx context.Context, in *magicMailInput) (*struct{}, error) {
	web := s.sessions.Token(ctx) != "" || (s.origin != "" && originOf(ctx) == s.origin)
	return nil, s.queueSignIn(ctx, in.Body.Email, web)
}

// queueSignIn checks the address and its limits and queues the mail: a link
// when web is set (a browser on this app), a code otherwise.
func (s *Server) queueSignIn(ctx context.Context, address string, web bool) error {
	email, err := validEmail(address)
	if err != nil {
		return err
	}
	if err := s.limiter.allow("magic-mail-ip", remoteIP(ctx)); err != nil {
		return err
	}
	if err := s.limiter.allow("magic-mail-address", email); err != nil {
		return err
	}
	return s.askSignIn(ctx, signInRequest{email: email, web: web})
}

// errCodeRejected is the single answer to every failed code exchange.
func errCodeRejected() *apiError {
	return invalid("code", store.ErrCodeRejected.Message)
}

func (s *Server) exchangeMagicCode(ctx context.Context, in *magicTokenInput) (*struct{ Body Data[AccessToken] }, error) {
	user, err := s.checkSignInCode(ctx, in.Body.Email, in.Body.Code, false)
	if err != nil {
		return nil, err
	}
	hash := s.keys.mac(store.CodeSignIn, user.ID, strings.TrimSpace(in.Body.Code))
	if user.TwoFactor() {
		if in.Body.TwoFactorCode == "" && in.Body.RecoveryCode == "" {
			return nil, invalid("two_factor_code", "Two-factor authentication is on: send two_factor_code or recovery_code with the code.")
		}
		if err := s.checkSecondFactor(ctx, user, in.Body.TwoFactorCode, in.Body.RecoveryCode); err != nil {
			return nil, err
		}
		if err := s.opts.Store.CheckMailCode(ctx, user.ID, store.CodeSignIn, hash, true); err != nil {
			return nil, errCodeRejected()
		}
	}
	if err := s.opts.Store.MarkEmailVerified(ctx, user.ID); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(in.Body.DeviceName)
	if name == "" {
		name = "Signed in by mail"
	}
	t := store.Token{UserID: user.ID, Name: name, Scopes: []string{scopeAll}}
	if s.opts.TokenLifetime > 0 {
		at := s.opts.Store.Now().Add(s.opts.TokenLifetime)
		t.ExpiresAt = &at
	}
	plain, err := s.opts.Store.CreateToken(ctx, &t)
	if err != nil {
		return nil, err
	}
	return one(AccessToken{Token: plain, ID: t.ID, Name: t.Name, Scopes: t.Scopes, ExpiresAt: stamp(t.ExpiresAt), CreatedAt: Timestamp(t.CreatedAt)}), nil
}

// checkSignInCode finds the user a mailed sign-in code is for, within the
// limits of POST /magic-links/tokens. The code is used up, except that with
// two-factor on it is kept unless consume is set. Every failure of the code
// is the same 422 under code.
func (s *Server) checkSignInCode(ctx context.Context, address, code string, consume bool) (*store.User, error) {
	if err := s.limiter.allow("magic-token-ip", remoteIP(ctx)); err != nil {
		return nil, err
	}
	email := store.NormaliseEmail(address)
	if err := s.limiter.allow("magic-token-address", email); err != nil {
		return nil, err
	}
	code = strings.TrimSpace(code)
	user, err := s.opts.Store.FindUserByEmail(ctx, email)
	if store.ErrorCode(err) == store.ENOTFOUND {
		// The same work as for a known address: a code is looked for (under
		// no user, so none is found, and the answer is the one 422) in the
		// same write transaction.
		user = &store.User{}
	} else if err != nil {
		return nil, err
	}
	hash := s.keys.mac(store.CodeSignIn, user.ID, code)
	// With two-factor on, the code is checked but kept until the second
	// factor is right too, unless the caller keeps that state itself.
	if err := s.opts.Store.CheckMailCode(ctx, user.ID, store.CodeSignIn, hash, consume || !user.TwoFactor()); err != nil {
		if store.ErrorCode(err) == store.EINVALID {
			return nil, errCodeRejected()
		}
		return nil, err
	}
	return user, nil
}

// checkPath applies the rules of a link's path: required, at most 255
// characters, and a path on this app alone, both as written and as a URL
// parser reads it: a browser drops tabs and newlines and reads a backslash
// as a slash, so "/\t/evil.example" would name another host. So no control
// character or backslash (written or percent-encoded), no scheme, no host,
// and one leading slash, not two.
func checkPath(path string) error {
	switch {
	case path == "":
		return invalid("path", "The path field is required.")
	case utf8.RuneCountInString(path) > 255:
		return invalid("path", "The path may not be longer than 255 characters.")
	}
	bad := invalid("path", "The path must be a path on this app, like /timeline: one leading slash, and no scheme, host, backslash or control character.")
	u, err := url.Parse(path)
	if err != nil || !onlyPath(path) || !onlyPath(u.Path) || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return bad
	}
	return nil
}

// onlyPath reports whether p starts with a single slash and holds no
// backslash or control character.
func onlyPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return false
	}
	return !strings.ContainsFunc(p, func(r rune) bool { return r == '\\' || unicode.IsControl(r) })
}

// checkReturnTo accepts only URLs on this app's own origin: base_url's,
// or the one the request was sent to.
func (s *Server) checkReturnTo(ctx context.Context, returnTo string) error {
	if returnTo == "" {
		return nil
	}
	site := siteOf(ctx)
	u, err := url.Parse(returnTo)
	if err != nil || u.User != nil || (u.Scheme+"://"+u.Host != s.origin && u.Scheme+"://"+u.Host != site) {
		origin := s.origin
		if origin == "" {
			origin = site
		}
		return invalid("return_to", "The return_to must be a URL on this app's own origin, "+origin+".")
	}
	return nil
}

// magicLink signs a login URL for the user; login is the absolute URL of
// GET /magic-links/login it starts from.
func (s *Server) magicLink(login, userID, path, returnTo string) (MagicLink, time.Time) {
	expires := s.opts.Store.Now().Add(MagicLinkLifetime).Truncate(time.Second)
	exp := strconv.FormatInt(expires.Unix(), 10)
	q := url.Values{}
	q.Set("user_uuid", userID)
	q.Set("path", path)
	if returnTo != "" {
		q.Set("return_to", returnTo)
	}
	q.Set("expires", exp)
	q.Set("signature", s.keys.mac("magic-link", userID, path, returnTo, exp))
	return MagicLink{URL: login + "?" + q.Encode(), ExpiresAt: Timestamp(expires)}, expires
}

func (s *Server) makeMagicLink(ctx context.Context, in *magicMeInput) (*struct{ Body Data[MagicLink] }, error) {
	// The link opens a session, and a session carries every scope.
	if err := mayOpenSession(current(ctx)); err != nil {
		return nil, err
	}
	path := in.Body.Path
	if path == "" {
		path = "/"
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if err := s.checkReturnTo(ctx, in.Body.ReturnTo); err != nil {
		return nil, err
	}
	// An answer to this request: the link is on the host the request was sent to.
	l, _ := s.magicLink(link(ctx, "/magic-links/login"), current(ctx).User.ID, path, in.Body.ReturnTo)
	return one(l), nil
}

func (s *Server) magicLogin(ctx context.Context, in *magicLoginInput) (*magicLoginOutput, error) {
	// Authorization first: nothing about the path is looked at before the
	// link proves it was made here.
	exp := in.Expires
	if !equal(in.Signature, s.keys.mac("magic-link", in.UserUUID, in.Path, in.ReturnTo, strconv.FormatInt(exp, 10))) {
		return nil, &apiError{status: http.StatusForbidden, Message: "Invalid signature."}
	}
	if !s.opts.Store.Now().Before(time.Unix(exp, 0)) {
		return nil, &apiError{status: http.StatusForbidden, Message: "This link has expired. Ask for a new one."}
	}
	if err := checkPath(in.Path); err != nil {
		return nil, err
	}
	if err := s.checkReturnTo(ctx, in.ReturnTo); err != nil {
		return nil, err
	}
	user, err := s.opts.Store.FindUserByID(ctx, in.UserUUID)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return nil, &apiError{status: http.StatusForbidden, Message: "Invalid signature."}
	} else if err != nil {
		return nil, err
	}
	if err := s.opts.Store.MarkEmailVerified(ctx, user.ID); err != nil {
		return nil, err
	}
	state, err := s.afterFirstFactor(ctx, user, false)
	if err != nil {
		return nil, err
	}
	if strings.Contains(in.Accept, "application/json") {
		return &magicLoginOutput{Status: http.StatusOK, Body: &Data[LoginResult]{Data: LoginResult{TwoFactor: state.Body.TwoFactor, Path: in.Path}}}, nil
	}
	location := in.Path
	if in.ReturnTo != "" {
		location += map[bool]string{true: "&", false: "?"}[strings.Contains(location, "?")] + "return_to=" + url.QueryEscape(in.ReturnTo)
	}
	return &magicLoginOutput{Status: http.StatusFound, Location: location}, nil
}

type originKey struct{}

// originOf is the request's Origin header, put in the context by withRequestLog.
func originOf(ctx context.Context) string {
	o, _ := ctx.Value(originKey{}).(string)
	return o
}
