package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/recur-journal/recur/store"
)

// Scope names used by the routes.
const (
	scopeProfileRead    = "profile:read"
	scopeSettingsRead   = "settings:read"
	scopeSettingsWrite  = "settings:write"
	scopeFeedbackWrite  = "feedback:write"
	scopeAppsManage     = "apps:manage"
	scopeDevicesWrite   = "devices:write"
	scopeAccountExport  = "account:export"
	scopeAll            = store.ScopeAll
	securityBearer      = "bearer"
	securitySession     = "session"
	securityDescription = "A personal access token, sent as `Authorization: Bearer <id>|<secret>`."
	sessionDescription  = "The browser session cookie set by POST /login or GET /magic-links/login. A session may do everything a token with every scope may."
)

// scopeTable renders the scopes as a Markdown table for the OpenAPI document.
func scopeTable() string {
	var b strings.Builder
	b.WriteString("| scope | grants |\n|---|---|\n")
	for _, s := range store.Scopes {
		fmt.Fprintf(&b, "| `%s` | %s |\n", s.Name, s.Description)
	}
	b.WriteString("| `*` | every scope but `" + scopeMetricsRead + "`, which only the owner grants, with `recur token create` |\n")
	return b.String()
}

// mayOpenSession is mayMake for a credential that opens a browser session
// (a signed sign-in link): a session carries every scope, so the caller must
// hold "*", and an app's token never may, whatever it was given.
func mayOpenSession(p *principal) error {
	if p.Token != nil && p.Token.App {
		return &apiError{status: http.StatusForbidden,
			Message: "An app's token cannot open a browser session; sign in in the browser instead."}
	}
	return mayMake(p, []string{scopeAll})
}

// mayMake is the one rule every route that makes or widens a credential
// (a token, an app, a session, a signed link) calls before it does: the
// caller must hold every scope the new credential will carry. A session
// holds every scope; a token holds what it was given, and "*" only when it
// was given "*", because "*" also grants scopes added in later versions.
// It answers 403 naming the first scope the caller lacks.
func mayMake(p *principal, scopes []string) error {
	if p.Token == nil {
		return nil
	}
	for _, sc := range scopes {
		held := p.Token.Can(sc)
		if sc == scopeAll {
			held = slices.Contains(p.Token.Scopes, scopeAll)
		}
		if !held {
			return &apiError{status: http.StatusForbidden,
				Message: "This token lacks the " + sc + " scope, so it cannot make a credential that carries it."}
		}
	}
	return nil
}
