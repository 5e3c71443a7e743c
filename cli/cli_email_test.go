package cli

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// recur user add and recur token create take an address in any of the
// forms a person types it, and mean the one account.
func TestCommandsNormaliseAddresses(t *testing.T) {
	t.Parallel()
	dir := migratedDir(t, t.TempDir())
	id, _, err := run(t, dir, "correct horse battery\n", "user", "add", "  "+norm.NFD.String("JOSÉ@Example.com")+" ", "--password-stdin")
	if err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{norm.NFC.String("josé@example.com"), norm.NFD.String("José@example.com  "), "JOSÉ@EXAMPLE.COM"} {
		_, _, err := run(t, dir, "", "user", "add", email)
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("user add %q after %s: %v, want already exists", email, strings.TrimSpace(id), err)
		}
		out, _, err := run(t, dir, "", "token", "create", email)
		if err != nil || !strings.Contains(out, "|") {
			t.Fatalf("token create %q: %q %v", email, out, err)
		}
	}
}
