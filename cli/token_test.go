package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenListAndRevoke lists a user's tokens without their secrets and
// revokes one by id: it answers 401 from then on.
func TestTokenListAndRevoke(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	_, _, base := startServer(t, dir)
	run(t, dir, "", "user", "add", "ana@example.com")
	run(t, dir, "", "user", "add", "ben@example.com")
	plain, _, _ := run(t, dir, "", "token", "create", "ana@example.com", "--name", "laptop", "--scopes", "captures:read", "--expires", "24h")
	plain = strings.TrimSpace(plain)
	bens, _, _ := run(t, dir, "", "token", "create", "ben@example.com", "--name", "bens")
	api := apiClient{T: t, Base: base, Token: plain}
	full, _, _ := run(t, dir, "", "token", "create", "ana@example.com", "--name", "script")
	if status, body := (apiClient{T: t, Base: base, Token: strings.TrimSpace(full)}).Do("POST", "/apps", `{"name":"Phone"}`); status != 201 {
		t.Fatalf("POST /apps: %d %v", status, body)
	}
	id, secret, _ := strings.Cut(plain, "|")

	out, _, err := run(t, dir, "", "token", "list", "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var laptop, phone string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, "laptop"):
			laptop = line
		case strings.Contains(line, "Phone"):
			phone = line
		}
	}
	if f := strings.Fields(laptop); len(f) < 2 || f[0] != id || !strings.Contains(laptop, "captures:read") || !strings.HasSuffix(laptop, "no") {
		t.Errorf("the laptop token's row is %q, want its id, scope and not an app", laptop)
	}
	if !strings.HasSuffix(phone, "yes") {
		t.Errorf("the app's token's row is %q, want it marked as an app's", phone)
	}
	if strings.Contains(out, secret) || strings.Contains(out, "bens") {
		t.Errorf("token list showed a secret or another user's token:\n%s", out)
	}

	out, _, err = run(t, dir, "", "token", "revoke", id)
	if err != nil || !strings.Contains(out, "laptop") || !strings.Contains(out, "ana@example.com") {
		t.Fatalf("revoke said %q, %v", out, err)
	}
	if status, _ := api.Do("GET", "/captures", ""); status != 401 {
		t.Errorf("the revoked token answers %d, want 401", status)
	}
	if status, _ := (apiClient{T: t, Base: base, Token: strings.TrimSpace(bens)}).Do("GET", "/users/me", ""); status != 200 {
		t.Errorf("another token answers %d after the revoke", status)
	}
	if out, _, _ := run(t, dir, "", "token", "list", "ana@example.com"); strings.Contains(out, "laptop") {
		t.Errorf("a revoked token is still listed:\n%s", out)
	}
	for _, bad := range []string{id, "0190e7a0-0000-7000-8000-000000000000", "not-an-id"} {
		if _, _, err := run(t, dir, "", "token", "revoke", bad); err == nil || !strings.Contains(err.Error(), "no live token") {
			t.Errorf("revoke %q: %v, want no live token", bad, err)
		}
	}
}
