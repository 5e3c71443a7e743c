package cli

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// recur user unlock lifts the lock that wrong passwords from many
// addresses put on an account: the right password signs in again at once.
func TestUserUnlock(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	_, _, base := startServer(t, dir, "RECUR_SERVER_TRUSTED_PROXIES=127.0.0.1")
	if _, _, err := run(t, dir, "right password\n", "user", "add", "ana@example.com", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	login := func(from int, password string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(`{"email":"ana@example.com","password":"`+password+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", "203.0.113."+strconv.Itoa(from))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range 10 {
		if status := login(i+1, "wrong password"); status != 422 {
			t.Fatalf("wrong password %d: %d", i+1, status)
		}
	}
	if status := login(100, "right password"); status != 422 {
		t.Fatalf("the right password while locked: %d, want 422", status)
	}
	out, _, err := run(t, dir, "", "user", "unlock", "Ana@Example.com")
	if err != nil || !strings.Contains(out, "Unlocked ana@example.com") {
		t.Fatalf("unlock said %q, %v", out, err)
	}
	if status := login(101, "right password"); status != 200 {
		t.Fatalf("the right password after unlock: %d", status)
	}
	out, _, err = run(t, dir, "", "user", "unlock", "ana@example.com")
	if err != nil || !strings.Contains(out, "was not locked") {
		t.Errorf("a second unlock said %q, %v", out, err)
	}
	if _, _, err := run(t, dir, "", "user", "unlock", "nobody@example.com"); err == nil || !strings.Contains(err.Error(), "no user has the address") {
		t.Errorf("unknown user: %v", err)
	}
}
