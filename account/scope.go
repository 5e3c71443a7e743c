package account

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// Scope names a permission a bearer token may carry. Tokens are stored
// with their scopes as plain strings (store.Token.Scopes).
type Scope string

// The scopes. ScopeAll and ScopeMetricsRead are the store's, whose rules
// (store.Token.Can, store.OwnerScope) know them.
const (
	ScopeProfileRead    Scope = "profile:read"
	ScopeCapturesRead   Scope = "captures:read"
	ScopeCapturesWrite  Scope = "captures:write"
	ScopePatternsRead   Scope = "patterns:read"
	ScopePatternsReview Scope = "patterns:review"
	ScopeSettingsRead   Scope = "settings:read"
	ScopeSettingsWrite  Scope = "settings:write"
	ScopeFeedbackWrite  Scope = "feedback:write"
	ScopeAppsManage     Scope = "apps:manage"
	ScopeDevicesWrite   Scope = "devices:write"
	ScopeAccountExport  Scope = "account:export"
	// ScopeMetricsRead reads the instance's metrics: the owner's alone,
	// granted at the command line, and not part of ScopeAll.
	ScopeMetricsRead Scope = store.ScopeMetricsRead
	// ScopeAll carries every scope, including ones added in later versions.
	ScopeAll Scope = store.ScopeAll
)

// ScopeInfo is a scope with what it grants.
type ScopeInfo struct {
	Name        Scope
	Description string
}

// Scopes lists every scope but ScopeAll, in the order the README and
// OpenAPI show them.
var Scopes = []ScopeInfo{
	{ScopeProfileRead, i18n.Key("Read the account: GET /users/me.")},
	{ScopeCapturesRead, i18n.Key("Read entries and the calendar: captures, timeline.")},
	{ScopeCapturesWrite, i18n.Key("Write and delete entries.")},
	{ScopePatternsRead, i18n.Key("Read patterns, their correlations and flows.")},
	{ScopePatternsReview, i18n.Key("Accept or reject patterns and correlations.")},
	{ScopeSettingsRead, i18n.Key("Read settings.")},
	{ScopeSettingsWrite, i18n.Key("Change settings.")},
	{ScopeFeedbackWrite, i18n.Key("Send feedback to whoever runs this instance.")},
	{ScopeAppsManage, i18n.Key("List, register, change and remove third-party apps and their tokens.")},
	{ScopeDevicesWrite, i18n.Key("Register and remove the push tokens of your devices.")},
	{ScopeAccountExport, i18n.Key("Download everything stored for the account: GET /users/me/export.")},
	{ScopeMetricsRead, i18n.Key("Read the whole instance's metrics in the Prometheus format: GET /metrics (outside /api). Only the owner grants it, with recur token create; * does not include it.")},
}

// ScopeNames lists the names of Scopes, in order.
func ScopeNames() []string {
	names := make([]string, len(Scopes))
	for i, s := range Scopes {
		names[i] = string(s.Name)
	}
	return names
}

// KnownScope reports whether name is a scope of Scopes or ScopeAll.
func KnownScope(name string) bool {
	return name == string(ScopeAll) || slices.Contains(ScopeNames(), name)
}

// UnknownScope is the sentence that refuses a scope name that does not exist.
func UnknownScope(name string) string {
	return fmt.Sprintf("The scope %q does not exist; known scopes are %s, or * for all.", name, strings.Join(ScopeNames(), ", "))
}

// ParseScopes reads a comma-separated list of scope names, as the command
// line takes them, rejecting unknown ones. An empty list means every
// scope (ScopeAll).
func ParseScopes(list string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" || slices.Contains(out, s) {
			continue
		}
		if !KnownScope(s) {
			return nil, fmt.Errorf("unknown scope %q; known scopes are %s, or * for all", s, strings.Join(ScopeNames(), ", "))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		out = []string{string(ScopeAll)}
	}
	return out, nil
}

// mayOpenSession is mayMake for a credential that opens a browser session
// (a signed sign-in link): a session carries every scope, so the caller must
// hold "*", and an app's token never may, whatever it was given.
func mayOpenSession(c *Caller) error {
	if c.Token != nil && c.Token.App {
		return &Error{Status: http.StatusForbidden,
			Message: i18n.Key("An app's token cannot open a browser session; sign in in the browser instead.")}
	}
	return mayMake(c, []string{string(ScopeAll)})
}

// mayMake is the one rule every route that makes or widens a credential
// (a token, an app, a session, a signed link) calls before it does: the
// caller must hold every scope the new credential will carry. A session
// holds every scope; a token holds what it was given, and "*" only when it
// was given "*", because "*" also grants scopes added in later versions.
// It answers 403 naming the first scope the caller lacks.
func mayMake(c *Caller, scopes []string) error {
	if c.Token == nil {
		return nil
	}
	for _, sc := range scopes {
		held := c.Token.Can(sc)
		if sc == string(ScopeAll) {
			held = slices.Contains(c.Token.Scopes, string(ScopeAll))
		}
		if !held {
			return &Error{Status: http.StatusForbidden,
				Message: "This token lacks the " + sc + " scope, so it cannot make a credential that carries it."}
		}
	}
	return nil
}

// CheckGrant makes sure every scope exists (422 under scopes, one sentence
// per unknown scope or owner's scope, which no app may carry) and that c
// may grant them all (mayMake: 403 naming the scope it lacks).
func CheckGrant(c *Caller, scopes []string) error {
	if len(scopes) == 0 {
		return invalid("scopes", "Give at least one scope, such as "+string(ScopeCapturesWrite)+".")
	}
	var problems []string
	for _, sc := range scopes {
		if !KnownScope(sc) {
			problems = append(problems, UnknownScope(sc))
		}
		if store.OwnerScope(sc) {
			problems = append(problems, store.OwnerScopeRefusal)
		}
	}
	if len(problems) > 0 {
		return invalidFields(map[string][]string{"scopes": problems})
	}
	return mayMake(c, scopes)
}
