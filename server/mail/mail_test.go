package mail_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/recur-journal/recur/server/mail"
)

// Without SMTP, the log stands in for the mail: one line that holds the
// link as it is, not the mail's escaped body.
func TestLogSenderWritesOneLineWithTheLink(t *testing.T) {
	link := "https://recur.example/api/magic-links/login?user_uuid=u&path=%2F&expires=1&signature=abc"
	for _, c := range []struct {
		name, want string
		m          mail.Message
	}{
		{"Link", link, mail.Message{To: "a@example.com", Subject: "Sign in to Recur", Text: "Open this link:\n\n" + link + "\n\nRecur", Link: link}},
		{"Code", "code=482913", mail.Message{To: "a@example.com", Subject: "Your code", Text: "Your code is:\n\n    482913\n", Code: "482913"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			s := &mail.LogSender{Logger: slog.New(slog.NewTextHandler(&buf, nil))}
			if err := s.Send(context.Background(), c.m); err != nil {
				t.Fatal(err)
			}
			out := strings.TrimSuffix(buf.String(), "\n")
			if strings.Contains(out, "\n") {
				t.Errorf("more than one line: %q", out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("the line %q lacks %q", out, c.want)
			}
			if strings.Contains(out, `\n`) {
				t.Errorf("the line holds the mail's escaped body: %q", out)
			}
		})
	}
}
