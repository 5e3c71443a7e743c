package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

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

// sendMagicLink asks for a sign-in mail: a link for a browser on this app
// (it has a session, or sends this app's Origin), a code for anyone else.
func (s *Server) sendMagicLink(ctx context.Context, in *magicMailInput) (*struct{}, error) {
	web := s.sessions.Token(ctx) != "" || (s.origin != "" && originOf(ctx) == s.origin)
	return nil, s.accounts.AskSignInMail(ctx, in.Body.Email, web)
}

func (s *Server) exchangeMagicCode(ctx context.Context, in *magicTokenInput) (*struct{ Body Data[AccessToken] }, error) {
	b := in.Body
	t, plain, err := s.accounts.ExchangeCode(ctx, b.Email, b.Code, b.DeviceName, b.TwoFactorCode, b.RecoveryCode)
	if err != nil {
		return nil, err
	}
	return one(AccessToken{Token: plain, ID: t.ID, Name: t.Name, Scopes: t.Scopes, ExpiresAt: stamp(t.ExpiresAt), CreatedAt: Timestamp(t.CreatedAt)}), nil
}

func (s *Server) makeMagicLink(ctx context.Context, in *magicMeInput) (*struct{ Body Data[MagicLink] }, error) {
	// An answer to this request: the link is on the host the request was sent to.
	u, expires, err := s.accounts.MakeSignInLink(current(ctx), link(ctx, "/magic-links/login"), siteOf(ctx), in.Body.Path, in.Body.ReturnTo)
	if err != nil {
		return nil, err
	}
	return one(MagicLink{URL: u, ExpiresAt: Timestamp(expires)}), nil
}

func (s *Server) magicLogin(ctx context.Context, in *magicLoginInput) (*magicLoginOutput, error) {
	twoFactor, err := s.accounts.SignInByLink(ctx, siteOf(ctx), in.UserUUID, in.Path, in.ReturnTo, in.Expires, in.Signature)
	if err != nil {
		return nil, err
	}
	if strings.Contains(in.Accept, "application/json") {
		return &magicLoginOutput{Status: http.StatusOK, Body: &Data[LoginResult]{Data: LoginResult{TwoFactor: twoFactor, Path: in.Path}}}, nil
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
