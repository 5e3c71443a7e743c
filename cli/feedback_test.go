package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestFeedbackList shows every user's feedback newest first with the
// sender's address, and nothing a sender typed can drive the terminal.
func TestFeedbackList(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	_, _, base := startServer(t, dir)
	if out, _, err := run(t, dir, "", "feedback", "list"); err != nil || out != "" {
		t.Fatalf("feedback list with none: %q, %v", out, err)
	}
	send := func(email, text string) {
		run(t, dir, "", "user", "add", email)
		token, _, _ := run(t, dir, "", "token", "create", email)
		b, _ := json.Marshal(map[string]string{"feedback": text})
		body := string(b)
		if status, got := (apiClient{T: t, Base: base, Token: strings.TrimSpace(token)}).Do("POST", "/feedback", body); status >= 300 {
			t.Fatalf("POST /feedback: %d %v", status, got)
		}
	}
	send("ana@example.com", "First note")
	send("ben@example.com", "Second note\x1b]0;owned\x07")
	out, _, err := run(t, dir, "", "feedback", "list")
	if err != nil {
		t.Fatal(err)
	}
	first, second := strings.Index(out, "First note"), strings.Index(out, "Second note")
	if first < 0 || second < 0 || second > first {
		t.Fatalf("feedback list is not newest first:\n%s", out)
	}
	if !strings.Contains(out[:second], "ben@example.com") || !strings.Contains(out[second:first], "ana@example.com") {
		t.Errorf("senders missing or misplaced:\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("control characters reached the terminal: %q", out)
	}
	js, _, err := run(t, dir, "", "feedback", "list", "--json")
	if err != nil || !strings.Contains(js, `"email": "ana@example.com"`) || !strings.Contains(js, `"feedback": "First note"`) {
		t.Errorf("feedback list --json printed %s, %v", js, err)
	}
}
