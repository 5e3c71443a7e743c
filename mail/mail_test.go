package mail_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/mail"
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
			if err := s.Send(context.Background(), c.m); !errors.Is(err, mail.ErrLogged) {
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

// signalling tells, by closing done, that its sender has returned.
type signalling struct {
	mail.Sender
	done chan struct{}
}

func (s signalling) Send(ctx context.Context, m mail.Message) error {
	defer close(s.done)
	return s.Sender.Send(ctx, m)
}

// A mail written to the log instead of sent is logged once, as not sent:
// the queue neither says it was sent nor retries it.
func TestQueueSaysALoggedMailWasNotSent(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	sender := signalling{Sender: &mail.LogSender{Logger: log}, done: make(chan struct{})}
	q := mail.NewQueue(mail.QueueOptions{Sender: sender, Logger: log, Backoff: time.Millisecond})
	q.Start()
	q.Enqueue(mail.Message{To: "a@example.com", Subject: "Sign in to Recur", Link: "http://127.0.0.1:8080/api/magic-links/login"})
	select {
	case <-sender.done:
	case <-time.After(10 * time.Second):
		q.Stop()
		t.Fatalf("the mail was not handed to the sender within 10s; the log:\n%s", out.String())
	}
	q.Stop() // waits for the delivery to finish its logging
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "mail not sent") {
		t.Errorf("the log says, for one mail written to it:\n%s\nwant the one line saying it was not sent", out.String())
	}
}
