package store

import (
	"fmt"
	"slices"
	"strings"
)

// Scope names a permission a bearer token may carry.
type Scope struct {
	Name        string
	Description string
}

// ScopeAll is the scope of a token that carries every scope, including ones
// added in later versions.
const ScopeAll = "*"

// ScopeMetricsRead lets a token read the instance's metrics. It is the
// owner's: only the command line (recur token create) puts it on a token,
// and "*" does not stand for it.
const ScopeMetricsRead = "metrics:read"

// OwnerScopeRefusal is the sentence that refuses an owner's scope (see
// OwnerScope) asked for over the API or the web app.
const OwnerScopeRefusal = "The scope " + ScopeMetricsRead + " reads the whole server's metrics and is its owner's alone: " +
	"the owner makes such a token at the command line with recur token create EMAIL --scopes " + ScopeMetricsRead + "."

// OwnerScope reports whether the scope name is one that only the server's
// owner grants, at the command line: never an app, a user or a token.
func OwnerScope(name string) bool { return name == ScopeMetricsRead }

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
	{ScopeMetricsRead, "Read the whole instance's metrics in the Prometheus format: GET /metrics (outside /api). Only the owner grants it, with recur token create; * does not include it."},
}

// ScopeNames lists the names of Scopes, in order.
func ScopeNames() []string {
	names := make([]string, len(Scopes))
	for i, s := range Scopes {
		names[i] = s.Name
	}
	return names
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
		if s != ScopeAll && !slices.Contains(ScopeNames(), s) {
			return nil, fmt.Errorf("unknown scope %q; known scopes are %s, or * for all", s, strings.Join(ScopeNames(), ", "))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		out = []string{ScopeAll}
	}
	return out, nil
}
