package server

import (
	"fmt"
	"strings"

	"github.com/recur-journal/recur/account"
)

// The security schemes of the OpenAPI document.
const (
	securityBearer      = "bearer"
	securitySession     = "session"
	securityDescription = "A personal access token, sent as `Authorization: Bearer <id>|<secret>`."
	sessionDescription  = "The browser session cookie set by POST /login or GET /magic-links/login. A session may do everything a token with every scope may."
)

// scopeTable renders the scopes as a Markdown table for the OpenAPI document.
func scopeTable() string {
	var b strings.Builder
	b.WriteString("| scope | grants |\n|---|---|\n")
	for _, s := range account.Scopes {
		fmt.Fprintf(&b, "| `%s` | %s |\n", s.Name, s.Description)
	}
	b.WriteString("| `*` | every scope but `" + string(account.ScopeMetricsRead) + "`, which only the owner grants, with `recur token create` |\n")
	return b.String()
}
