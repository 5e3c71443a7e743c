// Package mail sends the mails of sign-in: codes and links. Sending happens
// in the background with retries, so a slow or failing mail server never
// changes what the API answers.
package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one mail, with a text and an HTML body.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
	// Link or Code is what the mail carries for the person to use; the
	// log stands in for the mail with it when no SMTP server is set.
	Link string
	Code string
}

// Sender delivers a message.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

var (
	_ Sender = (*SMTPSender)(nil)
	_ Sender = (*LogSender)(nil)
)

// SMTPOptions says how to reach the SMTP server.
type SMTPOptions struct {
	Host     string
	Port     int
	Username string
	Password string
	From     string
	TLS      string // starttls, tls or none
	Timeout  time.Duration
}

// SMTPSender sends through an SMTP server with go-mail.
type SMTPSender struct{ opts SMTPOptions }

// NewSMTPSender returns a sender for the server in opts.
func NewSMTPSender(opts SMTPOptions) *SMTPSender {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	return &SMTPSender{opts}
}

// Send implements Sender.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	options := []gomail.Option{gomail.WithPort(s.opts.Port), gomail.WithTimeout(s.opts.Timeout)}
	switch s.opts.TLS {
	case "tls":
		options = append(options, gomail.WithSSL())
	case "none":
		options = append(options, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		options = append(options, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.opts.Username != "" {
		options = append(options, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.opts.Username), gomail.WithPassword(s.opts.Password))
	}
	client, err := gomail.NewClient(s.opts.Host, options...)
	if err != nil {
		return err
	}
	msg := gomail.NewMsg()
	if err := msg.From(s.opts.From); err != nil {
		return fmt.Errorf("from address: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("to address: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return client.DialAndSendWithContext(ctx, msg)
}

// LogSender writes each mail to the log instead of sending it, so that
// someone running Recur without an SMTP server can still sign in: one line
// per mail, with the link or code it carries (or, for a mail carrying
// neither, its text).
type LogSender struct{ Logger *slog.Logger }

// ErrLogged is what LogSender.Send returns: the mail was written to the
// log, not sent. It is not a failure; a Queue neither retries it nor says
// the mail was sent.
var ErrLogged = errors.New("mail written to the log, not sent")

// Send implements Sender. It returns ErrLogged.
func (s *LogSender) Send(_ context.Context, m Message) error {
	args := []any{"to", m.To, "subject", m.Subject}
	switch {
	case m.Link != "":
		args = append(args, "link", m.Link)
	case m.Code != "":
		args = append(args, "code", m.Code)
	default:
		args = append(args, "text", m.Text)
	}
	s.Logger.Warn("mail not sent: no [mail] smtp_host is set", args...)
	return ErrLogged
}

// Queue sends messages in the background, retrying failures with backoff.
type Queue struct {
	sender  Sender
	log     *slog.Logger
	ch      chan Message
	retries int
	backoff time.Duration
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// QueueOptions configures a Queue.
type QueueOptions struct {
	Sender Sender
	Logger *slog.Logger
	// Retries is how many times a failed send is tried again; 0 means 5.
	Retries int
	// Backoff is the first wait before a retry, doubling; 0 means 10s.
	Backoff time.Duration
}

// NewQueue returns a queue; Start runs it.
func NewQueue(opts QueueOptions) *Queue {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Retries <= 0 {
		opts.Retries = 5
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 10 * time.Second
	}
	return &Queue{sender: opts.Sender, log: opts.Logger, ch: make(chan Message, 256), retries: opts.Retries, backoff: opts.Backoff}
}

// Start runs the sending loop until Stop.
func (q *Queue) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	q.cancel = cancel
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-q.ch:
				// Each mail on its own, so one waiting to be retried holds up no other.
				q.wg.Add(1)
				go func() {
					defer q.wg.Done()
					q.deliver(ctx, m)
				}()
			}
		}
	}()
}

// Stop ends the loop; mail still queued is dropped, and logged.
func (q *Queue) Stop() {
	if q.cancel != nil {
		q.cancel()
	}
	q.wg.Wait()
	for {
		select {
		case m := <-q.ch:
			q.log.Warn("mail dropped at shutdown", "to", m.To, "subject", m.Subject)
		default:
			return
		}
	}
}

// Enqueue queues a message without waiting. A full queue drops it, logged.
func (q *Queue) Enqueue(m Message) {
	select {
	case q.ch <- m:
	default:
		q.log.Error("mail queue full; mail dropped", "to", m.To, "subject", m.Subject)
	}
}

func (q *Queue) deliver(ctx context.Context, m Message) {
	wait := q.backoff
	for try := 0; ; try++ {
		err := q.sender.Send(ctx, m)
		if errors.Is(err, ErrLogged) {
			return // the sender's own line says where the mail went
		}
		if err == nil {
			q.log.Info("mail sent", "to", m.To, "subject", m.Subject)
			return
		}
		if try >= q.retries {
			q.log.Error("mail not sent; giving up", "to", m.To, "subject", m.Subject, "error", err)
			return
		}
		q.log.Warn("mail not sent; will retry", "to", m.To, "error", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait *= 2
	}
}
