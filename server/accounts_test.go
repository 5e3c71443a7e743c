package server_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/recur-journal/recur/internal/smtptest"
	recurmail "github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
)

// mailbox is a real SMTP server on 127.0.0.1 that keeps what it receives.
type mailbox struct{ *smtptest.Server }

type received = smtptest.Message

func newMailbox(t *testing.T) *mailbox { return &mailbox{smtptest.Start(t)} }

// next waits, boundedly, for the next mail.
func (mb *mailbox) next(t *testing.T) received {
	t.Helper()
	return mb.Next(t)
}

var secret = bytes.Repeat([]byte{7}, 32)

// accountsHarness is a server that sends its mail through a real SMTP server.
func accountsHarness(t *testing.T, opts ...func(*server.Options)) (*harness, *mailbox) {
	mb := newMailbox(t)
	host, port, _ := net.SplitHostPort(mb.Addr)
	p, _ := strconv.Atoi(port)
	q := recurmail.NewQueue(recurmail.QueueOptions{
		Sender: recurmail.NewSMTPSender(recurmail.SMTPOptions{Host: host, Port: p, From: "recur@localhost", TLS: "none"}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Backoff: 10 * time.Millisecond})
	q.Start()
	t.Cleanup(q.Stop)
	h := newHarness(t, append([]func(*server.Options){func(o *server.Options) { o.Mailer = q; o.Secret = secret }}, opts...)...)
	return h, mb
}

// browser is an HTTP client with a cookie jar.
type browser struct {
	t      *testing.T
	h      *harness
	client *http.Client
	header http.Header
}

func (h *harness) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: h.t, h: h, header: http.Header{},
		client: &http.Client{Jar: jar, Transport: h.check, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, path string, body any) response {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		buf, _ := json.Marshal(body)
		rd = bytes.NewReader(buf)
	}
	u := path
	if !strings.HasPrefix(path, "http") {
		u = b.h.srv.URL + path
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range b.header {
		req.Header[k] = v
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: out}
}

func (b *browser) session() string {
	u, _ := url.Parse(b.h.srv.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == "recur_session" {
			return c.Value
		}
	}
	return ""
}

var codeRE = regexp.MustCompile(`\b(\d{6})\b`)

func codeIn(t *testing.T, m received) string {
	t.Helper()
	c := codeRE.FindStringSubmatch(m.Text)
	if c == nil {
		t.Fatalf("no code in %q", m.Text)
	}
	return c[1]
}

var linkRE = regexp.MustCompile(`http://\S+`)

func setPassword(t *testing.T, h *harness, u *store.User, pw string) {
	hash, err := store.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	// Made again with a password: the harness users have none.
	u2 := &store.User{Email: "pw-" + u.Email, PasswordHash: hash}
	if err := h.store.CreateUser(context.Background(), u2); err != nil {
		t.Fatal(err)
	}
	*u = *u2
}

// sign makes a link signature the way the server does, from the secret alone.
func sign(parts ...string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("magic-link"))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return hex.EncodeToString(m.Sum(nil))
}

func TestMagicCode(t *testing.T) {
	h, mb := accountsHarness(t)
	app := h.browser() // the native app: no session, no Origin
	if res := app.do("POST", "/api/magic-links/mails", map[string]string{"email": "alice@example.com"}); res.Status != 204 || len(res.Body) != 0 {
		t.Fatalf("mails = %d %s", res.Status, res.Body)
	}
	m := mb.next(t)
	if m.To != "alice@example.com" || !strings.Contains(m.HTML, "<strong>") {
		t.Fatalf("mail = %+v", m)
	}
	code := codeIn(t, m)

	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	failures := map[string]map[string]string{
		"UnknownAddress": {"email": "nobody@example.com", "code": code},
		"WrongCode":      {"email": "alice@example.com", "code": wrong},
		"EmptyCode":      {"email": "alice@example.com", "code": ""},
		"NotAnAddress":   {"email": "not-an-address", "code": code},
	}
	var first []byte
	for name, body := range failures {
		res := app.do("POST", "/api/magic-links/tokens", body)
		if res.Status != 422 {
			t.Fatalf("%s: %d %s", name, res.Status, res.Body)
		}
		if first == nil {
			first = res.Body
		} else if !bytes.Equal(first, res.Body) {
			t.Fatalf("%s answered %s, unlike %s", name, res.Body, first)
		}
	}
	res := app.do("POST", "/api/magic-links/tokens", map[string]string{"email": "Alice@Example.com", "code": code, "device_name": "phone"})
	if res.Status != 200 {
		t.Fatalf("exchange: %d %s", res.Status, res.Body)
	}
	token := res.JSON(t)["data"].(map[string]any)["token"].(string)
	me := h.do("GET", "/api/users/me", token, nil)
	if me.Status != 200 || me.JSON(t)["data"].(map[string]any)["email_verified_at"] == nil {
		t.Fatalf("the token's user: %d %s; want verified by the mail sign-in", me.Status, me.Body)
	}
	reused := app.do("POST", "/api/magic-links/tokens", map[string]string{"email": "alice@example.com", "code": code})
	if reused.Status != 422 || !bytes.Equal(reused.Body, first) {
		t.Fatalf("reused code: %d %s", reused.Status, reused.Body)
	}

	t.Run("Expired", func(t *testing.T) {
		app.do("POST", "/api/magic-links/mails", map[string]string{"email": "bob@example.com"})
		code := codeIn(t, mb.next(t))
		h.advance(11 * time.Minute) // past the code's ten minutes
		res := app.do("POST", "/api/magic-links/tokens", map[string]string{"email": "bob@example.com", "code": code})
		if res.Status != 422 || !bytes.Equal(res.Body, first) {
			t.Fatalf("expired code: %d %s", res.Status, res.Body)
		}
	})
	t.Run("UnknownAddressSameAnswer", func(t *testing.T) {
		known := app.do("POST", "/api/magic-links/mails", map[string]string{"email": "bob@example.com"})
		unknown := app.do("POST", "/api/magic-links/mails", map[string]string{"email": "stranger@example.com"})
		if known.Status != unknown.Status || !bytes.Equal(known.Body, unknown.Body) {
			t.Fatalf("known %d %q, unknown %d %q", known.Status, known.Body, unknown.Status, unknown.Body)
		}
		if _, err := h.store.FindUserByEmail(context.Background(), "stranger@example.com"); store.ErrorCode(err) != store.ENOTFOUND {
			t.Fatal("an unknown address made an account with signup off")
		}
	})
	t.Run("BadAddress", func(t *testing.T) {
		res := app.do("POST", "/api/magic-links/mails", map[string]string{"email": "nope"})
		if res.Status != 422 || !strings.Contains(string(res.Body), `"email":[`) {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
}

func TestMagicLinkLogin(t *testing.T) {
	h, mb := accountsHarness(t)
	web := h.browser()
	web.header.Set("Origin", h.srv.URL) // a browser on this app
	if res := web.do("POST", "/api/magic-links/mails", map[string]string{"email": "alice@example.com"}); res.Status != 204 {
		t.Fatalf("mails: %d %s", res.Status, res.Body)
	}
	m := mb.next(t)
	link := linkRE.FindString(m.Text)
	if !strings.Contains(link, "/api/magic-links/login?") || codeRE.MatchString(strings.ReplaceAll(m.Text, link, "")) {
		t.Fatalf("a web session got %q, want a link and no code", m.Text)
	}
	u, _ := url.Parse(link)
	q := u.Query()

	t.Run("TamperedSignature", func(t *testing.T) {
		bad := url.Values{}
		for k, v := range q {
			bad[k] = v
		}
		bad.Set("user_uuid", h.bob.ID)
		res := h.browser().do("GET", "/api/magic-links/login?"+bad.Encode(), nil)
		if res.Status != 403 || !strings.Contains(string(res.Body), "Invalid signature.") {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
	t.Run("SignatureBeforePath", func(t *testing.T) {
		res := h.browser().invalid().do("GET", "/api/magic-links/login?path=//evil.example&user_uuid="+h.alice.ID+"&expires=9999999999&signature=x", nil)
		if res.Status != 403 {
			t.Fatalf("%d %s; want 403 before the path is looked at", res.Status, res.Body)
		}
	})
	t.Run("PathToAnotherHost", func(t *testing.T) {
		exp := strconv.FormatInt(h.store.Now().Add(time.Minute).Unix(), 10)
		v := url.Values{"user_uuid": {h.alice.ID}, "path": {"//evil.example"}, "expires": {exp}, "signature": {sign(h.alice.ID, "//evil.example", "", exp)}}
		res := h.browser().invalid().do("GET", "/api/magic-links/login?"+v.Encode(), nil)
		if res.Status != 422 || !strings.Contains(string(res.Body), `"path":[`) {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
	t.Run("ReturnToElsewhere", func(t *testing.T) {
		exp := strconv.FormatInt(h.store.Now().Add(time.Minute).Unix(), 10)
		v := url.Values{"user_uuid": {h.alice.ID}, "path": {"/"}, "return_to": {"https://evil.example/x"}, "expires": {exp},
			"signature": {sign(h.alice.ID, "/", "https://evil.example/x", exp)}}
		res := h.browser().do("GET", "/api/magic-links/login?"+v.Encode(), nil)
		if res.Status != 422 || !strings.Contains(string(res.Body), `"return_to":[`) {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		mine := h.do("POST", "/api/magic-links/me", h.tokenA, map[string]string{"path": "/", "return_to": "https://evil.example/"})
		if mine.Status != 422 || !strings.Contains(string(mine.Body), `"return_to":[`) {
			t.Fatalf("magic-links/me: %d %s", mine.Status, mine.Body)
		}
	})
	t.Run("Expired", func(t *testing.T) {
		h.advance(16 * time.Minute)
		defer h.advance(-16 * time.Minute)
		if res := h.browser().do("GET", link, nil); res.Status != 403 || !strings.Contains(string(res.Body), "expired") {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
	t.Run("SignsInAndRedirects", func(t *testing.T) {
		b := h.browser()
		res := b.do("GET", link, nil)
		if res.Status != 302 || res.Header.Get("Location") != "/" {
			t.Fatalf("%d Location %q %s", res.Status, res.Header.Get("Location"), res.Body)
		}
		me := b.do("GET", "/api/users/me", nil)
		if me.Status != 200 || me.JSON(t)["data"].(map[string]any)["id"] != h.alice.ID {
			t.Fatalf("session after the link: %d %s", me.Status, me.Body)
		}
		// Opened again (a mail scanner got there first): still works until it expires.
		if again := h.browser().do("GET", link, nil); again.Status != 302 {
			t.Fatalf("second open: %d", again.Status)
		}
	})
	t.Run("JSONClient", func(t *testing.T) {
		b := h.browser()
		b.header.Set("Accept", "application/json")
		res := b.do("GET", link, nil)
		if res.Status != 200 || string(res.Body) != `{"data":{"two_factor":false,"path":"/"}}`+"\n" {
			t.Fatalf("%d %q", res.Status, res.Body)
		}
	})
	t.Run("MagicLinkForMe", func(t *testing.T) {
		res := h.do("POST", "/api/magic-links/me", h.tokenB, map[string]string{"path": "/timeline"})
		if res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		b := h.browser()
		got := b.do("GET", res.JSON(t)["data"].(map[string]any)["url"].(string), nil)
		if got.Status != 302 || got.Header.Get("Location") != "/timeline" {
			t.Fatalf("%d %q", got.Status, got.Header.Get("Location"))
		}
		if me := b.do("GET", "/api/users/me", nil); me.JSON(t)["data"].(map[string]any)["id"] != h.bob.ID {
			t.Fatalf("signed in as %s", me.Body)
		}
		if bad := h.doInvalid("POST", "/api/magic-links/me", h.tokenB, map[string]string{"path": "//evil.example"}); bad.Status != 422 {
			t.Fatalf("path //evil.example: %d", bad.Status)
		}
	})
}

func TestPasswordSession(t *testing.T) {
	h, _ := accountsHarness(t)
	user := *h.alice
	setPassword(t, h, &user, "correct horse battery")
	b := h.browser()
	if res := b.do("POST", "/api/login", map[string]string{"email": user.Email, "password": "wrong password"}); res.Status != 422 ||
		!strings.Contains(string(res.Body), `"email":["These credentials do not match our records."]`) {
		t.Fatalf("wrong password: %d %s", res.Status, res.Body)
	}
	// A session the attacker knows, planted before sign-in, is worth nothing after it.
	b.do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery"})
	planted := b.session()
	if planted == "" {
		t.Fatal("no session cookie after sign-in")
	}
	res := b.invalid().do("POST", "/api/login", map[string]string{"email": user.Email, "password": "correct horse battery", "remember": "yes"})
	if res.Status != 422 {
		t.Fatalf("remember as a string: %d", res.Status)
	}
	res = b.do("POST", "/api/login", map[string]any{"email": user.Email, "password": "correct horse battery", "remember": true})
	if res.Status != 200 || string(res.Body) != `{"two_factor":false}`+"\n" {
		t.Fatalf("login: %d %s", res.Status, res.Body)
	}
	if b.session() == planted {
		t.Fatal("the session token was not renewed at sign-in")
	}
	attacker := h.browser()
	u, _ := url.Parse(h.srv.URL)
	attacker.client.Jar.SetCookies(u, []*http.Cookie{{Name: "recur_session", Value: planted}})
	if res := attacker.do("GET", "/api/users/me", nil); res.Status != 401 {
		t.Fatalf("the planted session token still works: %d", res.Status)
	}
	var cookie string
	for _, c := range res.Header.Values("Set-Cookie") {
		cookie += c
	}
	if !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") {
		t.Errorf("cookie %q, want HttpOnly and SameSite=Lax", cookie)
	}

	t.Run("CrossOriginRefused", func(t *testing.T) {
		evil := &browser{t: t, h: h, client: b.client, header: http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}}
		if res := evil.do("POST", "/api/feedback", map[string]string{"feedback": "forged"}); res.Status != 403 ||
			!strings.Contains(string(res.Body), "Cross-origin request refused.") {
			t.Fatalf("cross-site POST on a session: %d %s", res.Status, res.Body)
		}
		if res := b.do("POST", "/api/feedback", map[string]string{"feedback": "mine"}); res.Status != 204 {
			t.Fatalf("same-origin POST on a session: %d %s", res.Status, res.Body)
		}
		req, _ := http.NewRequest("POST", h.srv.URL+"/api/feedback", strings.NewReader(`{"feedback":"with a token"}`))
		req.Header.Set("Authorization", "Bearer "+h.tokenA)
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Content-Type", "application/json")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 204 {
			t.Fatalf("cross-site POST with a bearer token: %d", r.StatusCode)
		}
	})
	t.Run("Logout", func(t *testing.T) {
		if res := b.do("POST", "/api/logout", nil); res.Status != 200 {
			t.Fatalf("logout: %d %s", res.Status, res.Body)
		}
		if res := b.do("GET", "/api/users/me", nil); res.Status != 401 {
			t.Fatalf("after logout: %d", res.Status)
		}
		token := h.do("POST", "/api/logout", h.tokenB, nil)
		if token.Status != 200 || h.do("GET", "/api/users/me", h.tokenB, nil).Status != 401 {
			t.Fatalf("logout with a token did not revoke it: %d", token.Status)
		}
	})
	t.Run("RateLimit", func(t *testing.T) {
		c := h.browser()
		var last response
		for range 6 {
			last = c.do("POST", "/api/login", map[string]string{"email": "limit@example.com", "password": "guess"})
		}
		if last.Status != 429 || last.Header.Get("Retry-After") == "" || !strings.Contains(string(last.Body), `"message":"Too many attempts.`) {
			t.Fatalf("sixth attempt: %d Retry-After %q %s", last.Status, last.Header.Get("Retry-After"), last.Body)
		}
	})
}

func TestConfirmation(t *testing.T) {
	h, mb := accountsHarness(t)
	b := h.browser()
	b.header.Set("Origin", h.srv.URL)
	b.do("POST", "/api/magic-links/mails", map[string]string{"email": "alice@example.com"})
	if res := b.do("GET", linkRE.FindString(mb.next(t).Text), nil); res.Status != 302 {
		t.Fatalf("sign in: %d", res.Status)
	}
	status := func() string { return string(b.do("GET", "/api/user/confirmed-password-status", nil).Body) }
	if got := status(); got != `{"confirmed":false}`+"\n" {
		t.Fatalf("status before = %s", got)
	}
	if res := b.do("POST", "/api/user/two-factor-authentication", nil); res.Status != 423 ||
		!strings.Contains(string(res.Body), "Password confirmation required.") {
		t.Fatalf("sensitive action unconfirmed: %d %s", res.Status, res.Body)
	}
	if res := b.do("POST", "/api/user/confirmation-codes", nil); res.Status != 204 {
		t.Fatalf("confirmation-codes: %d %s", res.Status, res.Body)
	}
	code := codeIn(t, mb.next(t))
	if res := b.do("POST", "/api/user/confirmations", map[string]string{"code": "999999x"}); res.Status != 422 {
		t.Fatalf("wrong code: %d", res.Status)
	}
	if res := b.do("POST", "/api/user/confirmations", map[string]string{"code": code}); res.Status != 204 {
		t.Fatalf("confirmations: %d %s", res.Status, res.Body)
	}
	if got := status(); got != `{"confirmed":true}`+"\n" {
		t.Fatalf("status after = %s", got)
	}
	h.advance(16 * time.Minute)
	if got := status(); got != `{"confirmed":false}`+"\n" {
		t.Fatalf("status 16 minutes later = %s", got)
	}
	if res := h.do("POST", "/api/user/confirmations", h.tokenA, map[string]string{"code": code}); res.Status != 400 ||
		string(res.Body) != `{"message":"Only a session can be confirmed."}`+"\n" {
		t.Fatalf("with a token: %d %s", res.Status, res.Body)
	}
}

func TestTwoFactor(t *testing.T) {
	h, mb := accountsHarness(t)
	user := *h.alice
	setPassword(t, h, &user, "correct horse battery")
	login := map[string]string{"email": user.Email, "password": "correct horse battery"}
	b := h.browser()
	b.do("POST", "/api/login", login)
	if res := b.do("POST", "/api/user/confirm-password", map[string]string{"password": "correct horse battery"}); res.Status != 200 {
		t.Fatalf("confirm-password: %d %s", res.Status, res.Body)
	}
	res := b.do("POST", "/api/user/two-factor-authentication", nil)
	if res.Status != 200 {
		t.Fatalf("enable: %d %s", res.Status, res.Body)
	}
	setup := res.JSON(t)["data"].(map[string]any)
	secretKey := setup["secret"].(string)
	if !strings.HasPrefix(setup["qr_code_svg"].(string), "<svg") || !strings.HasPrefix(setup["otpauth_url"].(string), "otpauth://totp/Recur:") {
		t.Fatalf("setup = %v", setup)
	}
	code, _ := totp.GenerateCode(secretKey, h.store.Now())
	res = b.do("POST", "/api/user/confirmed-two-factor-authentication", map[string]string{"code": code})
	if res.Status != 200 {
		t.Fatalf("confirm two-factor: %d %s", res.Status, res.Body)
	}
	var recovery []string
	for _, c := range res.JSON(t)["data"].(map[string]any)["recovery_codes"].([]any) {
		recovery = append(recovery, c.(string))
	}
	if len(recovery) != 8 {
		t.Fatalf("recovery codes = %v", recovery)
	}

	t.Run("PasswordThenCode", func(t *testing.T) {
		c := h.browser()
		if res := c.do("POST", "/api/login", login); string(res.Body) != `{"two_factor":true}`+"\n" {
			t.Fatalf("login = %s", res.Body)
		}
		if res := c.do("GET", "/api/users/me", nil); res.Status != 401 {
			t.Fatalf("signed in before the second factor: %d", res.Status)
		}
		pending := c.session()
		if res := c.do("POST", "/api/two-factor-challenge", map[string]string{"code": "000000"}); res.Status != 422 {
			t.Fatalf("wrong code: %d", res.Status)
		}
		h.advance(30 * time.Second) // each code works once: the next one
		code, _ := totp.GenerateCode(secretKey, h.store.Now())
		if res := c.do("POST", "/api/two-factor-challenge", map[string]string{"code": code}); res.Status != 200 {
			t.Fatalf("challenge: %d %s", res.Status, res.Body)
		}
		if c.session() == pending {
			t.Fatal("the session was not renewed after the second factor")
		}
		if res := c.do("GET", "/api/users/me", nil); res.Status != 200 {
			t.Fatalf("after the second factor: %d", res.Status)
		}
	})
	t.Run("RecoveryCodeOnce", func(t *testing.T) {
		for i, want := range []int{200, 422} {
			c := h.browser()
			c.do("POST", "/api/login", login)
			res := c.do("POST", "/api/two-factor-challenge", map[string]string{"recovery_code": strings.ToUpper(recovery[0])})
			if res.Status != want {
				t.Fatalf("use %d of a recovery code: %d %s", i+1, res.Status, res.Body)
			}
		}
	})
	t.Run("MailCodeNeedsSecondFactor", func(t *testing.T) {
		app := h.browser()
		app.do("POST", "/api/magic-links/mails", map[string]string{"email": user.Email})
		code := codeIn(t, mb.next(t))
		res := app.do("POST", "/api/magic-links/tokens", map[string]string{"email": user.Email, "code": code})
		if res.Status != 422 || !strings.Contains(string(res.Body), `"two_factor_code":[`) {
			t.Fatalf("code without the second factor: %d %s", res.Status, res.Body)
		}
		h.advance(30 * time.Second)
		tfa, _ := totp.GenerateCode(secretKey, h.store.Now())
		res = app.do("POST", "/api/magic-links/tokens", map[string]string{"email": user.Email, "code": code, "two_factor_code": tfa})
		if res.Status != 200 {
			t.Fatalf("code with the second factor: %d %s", res.Status, res.Body)
		}
	})
	t.Run("Disable", func(t *testing.T) {
		if res := b.do("DELETE", "/api/user/two-factor-authentication", nil); res.Status != 204 {
			t.Fatalf("disable: %d %s", res.Status, res.Body)
		}
		if res := h.browser().do("POST", "/api/login", login); string(res.Body) != `{"two_factor":false}`+"\n" {
			t.Fatalf("login after disabling = %s", res.Body)
		}
	})
}

func TestVerification(t *testing.T) {
	h, mb := accountsHarness(t)
	res := h.do("POST", "/api/email/verification-notification", h.tokenA, nil)
	if res.Status != 200 || string(res.Body) != `"verification-link-sent"`+"\n" {
		t.Fatalf("notification: %d %s", res.Status, res.Body)
	}
	link := linkRE.FindString(mb.next(t).Text)
	if bad := h.browser().do("GET", strings.Replace(link, "signature=", "signature=0", 1), nil); bad.Status != 403 {
		t.Fatalf("tampered link: %d", bad.Status)
	}
	if ok := h.browser().do("GET", link, nil); ok.Status != 200 {
		t.Fatalf("link: %d %s", ok.Status, ok.Body)
	}
	if again := h.do("POST", "/api/email/verification-notification", h.tokenA, nil); again.Status != 204 {
		t.Fatalf("verified already: %d", again.Status)
	}
}

// A mail server that is down changes no answer: the mail is retried in
// the background.
func TestMailServerDown(t *testing.T) {
	q := recurmail.NewQueue(recurmail.QueueOptions{
		Sender: recurmail.NewSMTPSender(recurmail.SMTPOptions{Host: "127.0.0.1", Port: 1, From: "recur@localhost", TLS: "none", Timeout: time.Second}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Retries: 1, Backoff: 10 * time.Millisecond})
	q.Start()
	t.Cleanup(q.Stop)
	h := newHarness(t, func(o *server.Options) { o.Mailer = q; o.Secret = secret })
	if res := h.browser().do("POST", "/api/magic-links/mails", map[string]string{"email": "alice@example.com"}); res.Status != 204 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
}

func TestSignup(t *testing.T) {
	h, mb := accountsHarness(t, func(o *server.Options) { o.Signup = true })
	app := h.browser()
	app.do("POST", "/api/magic-links/mails", map[string]string{"email": "new@example.com"})
	code := codeIn(t, mb.next(t))
	res := app.do("POST", "/api/magic-links/tokens", map[string]string{"email": "new@example.com", "code": code})
	if res.Status != 200 {
		t.Fatalf("a new address with signup on: %d %s", res.Status, res.Body)
	}
}
