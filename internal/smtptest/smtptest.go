// Package smtptest runs a real SMTP server (go-smtp) on 127.0.0.1 inside a
// test and keeps every mail it receives, so that a test reads what Recur
// mailed: the message's parts, and the sign-in links and codes in it.
package smtptest

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/recur-journal/recur/internal/wait"
)

// Message is one mail the server received.
type Message struct {
	To      string // the last recipient named
	Subject string
	Text    string // the text/plain part (the body, when there are no parts)
	HTML    string // the text/html part, if any
	// Decoded is the whole message decoded as quoted-printable: a link's =
	// signs and line breaks come back, whichever part it is in.
	Decoded string
}

// Server is an SMTP server on 127.0.0.1 that keeps the mail it receives.
type Server struct {
	// Addr is the server's host:port.
	Addr string

	mu   sync.Mutex
	msgs []Message
	got  chan struct{}
}

var (
	signInLink = regexp.MustCompile(`https?://[^\s"<>]+/api/magic-links/login\?[^\s"<>]+`)
	mailedCode = regexp.MustCompile(`Your code to [^\n]* is:\s+(\S+)`)
)

// Start starts a server on a free loopback port; the test's cleanup stops it.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{got: make(chan struct{}, 100)}
	srv := smtp.NewServer(s)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 5*time.Second, 5*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// HostPort is the server's host and port, apart, as [mail] takes them.
func (s *Server) HostPort() (host, port string) {
	host, port, _ = net.SplitHostPort(s.Addr)
	return host, port
}

// Next waits, for up to five seconds, for the next mail and returns the
// newest one received.
func (s *Server) Next(t testing.TB) Message {
	t.Helper()
	select {
	case <-s.got:
	case <-time.After(5 * time.Second):
		t.Fatal("no mail arrived within 5 seconds")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.msgs[len(s.msgs)-1]
}

// Messages returns every mail received so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Links returns the sign-in links mailed so far, oldest first.
func (s *Server) Links() []string {
	var links []string
	for _, m := range s.Messages() {
		if l := signInLink.FindString(m.Decoded); l != "" {
			links = append(links, html.UnescapeString(l))
		}
	}
	return links
}

// Codes returns the sign-in codes mailed so far (those of mail that
// carries one to type in), oldest first.
func (s *Server) Codes() []string {
	var codes []string
	for _, m := range s.Messages() {
		if c := mailedCode.FindStringSubmatch(m.Decoded); c != nil {
			codes = append(codes, c[1])
		}
	}
	return codes
}

// Link waits, for up to five seconds, for a mailed sign-in link and
// returns the newest.
func (s *Server) Link(t testing.TB) string {
	t.Helper()
	var link string
	wait.Eventually(t, 5*time.Second, "a sign-in mail", func() bool {
		if links := s.Links(); len(links) > 0 {
			link = links[len(links)-1]
		}
		return link != ""
	}, s.Seen)
	return link
}

// Code waits, for up to five seconds, for the mailed code after the first
// n and returns it.
func (s *Server) Code(t testing.TB, n int) string {
	t.Helper()
	return s.await(t, s.Codes, n, "code")
}

// NextLink waits, for up to five seconds, for the mailed sign-in link after
// the first n and returns it.
func (s *Server) NextLink(t testing.TB, n int) string {
	t.Helper()
	return s.await(t, s.Links, n, "sign-in link")
}

// Counts returns how many sign-in links and codes were mailed so far.
func (s *Server) Counts() (links, codes int) {
	return len(s.Links()), len(s.Codes())
}

// await waits, boundedly, until list holds more than n and returns item n.
func (s *Server) await(t testing.TB, list func() []string, n int, what string) string {
	t.Helper()
	var item string
	wait.Eventually(t, 5*time.Second, "a mailed "+what, func() bool {
		if l := list(); len(l) > n {
			item = l[n]
		}
		return item != ""
	}, s.Seen)
	return item
}

// Seen says what mail came, for a test that gives up waiting.
func (s *Server) Seen() string {
	return fmt.Sprintf("links mailed: %q\ncodes mailed: %q", s.Links(), s.Codes())
}

// NewSession is go-smtp's: each connection gets a session of its own.
func (s *Server) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }

type session struct {
	s  *Server
	to string
}

func (c *session) Reset()                                    {}
func (c *session) Logout() error                             { return nil }
func (c *session) Mail(string, *smtp.MailOptions) error      { return nil }
func (c *session) Rcpt(to string, _ *smtp.RcptOptions) error { c.to = to; return nil }

func (c *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	decoded, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(raw)))
	if err != nil {
		return err
	}
	msg, err := parse(raw)
	if err != nil {
		return err
	}
	msg.To, msg.Decoded = c.to, string(decoded)
	c.s.mu.Lock()
	c.s.msgs = append(c.s.msgs, msg)
	c.s.mu.Unlock()
	c.s.got <- struct{}{}
	return nil
}

// parse reads the subject and the text and HTML parts of a message.
func parse(raw []byte) (Message, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	msg := Message{Subject: m.Header.Get("Subject")}
	mediaType, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		return msg, err
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		b, err := io.ReadAll(m.Body)
		msg.Text = string(b)
		return msg, err
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		} else if err != nil {
			return msg, err
		}
		b, _ := io.ReadAll(p)
		if strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
			msg.HTML = string(b)
		} else {
			msg.Text = string(b)
		}
	}
	return msg, nil
}
