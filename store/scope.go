package store

// The scopes a token may carry are the account package's (account.Scope);
// the two below are the ones the store's own rules know.

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
