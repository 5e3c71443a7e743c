package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Scope names a permission a bearer token may carry. A token made with "*"
// carries every scope, including ones added in later versions.
type Scope struct {
	Name        string
	Description string
}

// Scopes lists every scope, in the order the README and OpenAPI show them.
var Scopes = []Scope{
	{"profile:read", "Read the account: GET /users/me."},
	{"captures:read", "Read entries and the calendar: captures, timeline."},
	{"captures:write", "Write and delete entries."},
	{"patterns:read", "Read patterns, their correlations and flows."},
	{"patterns:review", "Accept or reject patterns and correlations."},
	{"settings:read", "Read settings."},
	{"settings:write", "Change settings."},
	{"feedback:write", "Send feedback to whoever runs this instance."},
	{"apps:manage", "List, register, change and remove third-party apps and their tokens."},
	{"devices:write", "Register and remove the push tokens of your devices."},
	{"account:export", "Download everything stored for the account: GET /users/me/export."},
}

// Scope names used by the routes.
const (
	scopeProfileRead    = "profile:read"
	scopeSettingsRead   = "settings:read"
	scopeSettingsWrite  = "settings:write"
	scopeFeedbackWrite  = "feedback:write"
	scopeAppsManage     = "apps:manage"
	scopeDevicesWrite   = "devices:write"
	scopeAccountExport  = "account:export"
	scopeAll            = "*"
	securityBearer      = "bearer"
	securitySession     = "session"
	securityDescription = "A personal access token, sent as `Authorization: Bearer <id>|<secret>`."
	sessionDescription  = "The browser session cookie set by POST /login or GET /magic-links/login. A session may do everything a token with every scope may."
)

// ParseScopes reads a comma-separated list of scope names, rejecting unknown
// ones. An empty list means every scope ("*").
func ParseScopes(list string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" || slices.Contains(out, s) {
			continue
		}
		if s != scopeAll && !slices.ContainsFunc(Scopes, func(sc Scope) bool { return sc.Name == s }) {
			return nil, fmt.Errorf("unknown scope %q; known scopes are %s, or * for all", s, strings.Join(scopeNames(), ", "))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		out = []string{scopeAll}
	}
	return out, nil
}

func scopeNames() []string {
	names := make([]string, len(Scopes))
	for i, s := range Scopes {
		names[i] = s.Name
	}
	return names
}

// scopeTable renders the scopes as a Markdown table for the OpenAPI document.
func scopeTable() string {
	var b strings.Builder
	b.WriteString("| scope | grants |\n|---|---|\n")
	for _, s := range Scopes {
		fmt.Fprintf(&b, "| `%s` | %s |\n", s.Name, s.Description)
	}
	b.WriteString("| `*` | every scope |\n")
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
