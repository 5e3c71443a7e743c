package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/smtptest"
	"github.com/recur-journal/recur/internal/wait"
)

// logBuffer keeps what the server logs, for a test to read while it runs.
type logBuffer struct {
	lockedWriter // writing to buf
	buf          bytes.Buffer
}

func newLogBuffer() *logBuffer {
	b := &logBuffer{}
	b.w = &b.buf
	return b
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// awaitLine waits, boundedly, for a line of the log after the first from
// bytes that holds every one of parts, and returns it.
func awaitLine(t *testing.T, log fmt.Stringer, from int, parts ...string) string {
	t.Helper()
	var found string
	wait.Eventually(t, 5*time.Second, fmt.Sprintf("a log line with %q", parts), func() bool {
		for line := range strings.SplitSeq(log.String()[from:], "\n") {
			if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
				found = line
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("the log after byte %d:\n%s", from, log.String()[from:]) })
	return found
}

// mailConfig is a recur.toml that sends mail to the SMTP server at addr,
// with the log at level in format, and extra lines after.
func mailConfig(t *testing.T, path, addr, level, format, extra string) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	text := fmt.Sprintf("[mail]\nsmtp_host = %q\nsmtp_port = %s\ntls = \"none\"\n[log]\nlevel = %q\nformat = %q\n%s", host, port, level, format, extra)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// serveConfigured runs recur serve over the data folder dir with the
// configuration file path, on a free port, and returns it with its log.
func serveConfigured(t *testing.T, dir, path string) (*Main, *logBuffer) {
	t.Helper()
	logs := newLogBuffer()
	m := NewMain()
	m.Stdout, m.Stderr = io.Discard, logs
	m.Env = []string{"RECUR_STORAGE_DATA_DIR=" + dir, "RECUR_SERVER_ADDR=127.0.0.1:0", "RECUR_OLLAMA_URL=http://127.0.0.1:1"}
	if err := m.ParseFlags([]string{"serve", "--config", path}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's log:\n%s", logs)
		}
	})
	return m, logs
}

// TestReloadSecretFile reads a secret's file again at a reload: the log
// names the key that changed, never its value, and a move from the log to
// an SMTP server names the sign-in page's note as waiting for a restart.
func TestReloadSecretFile(t *testing.T) {
	t.Parallel()
	secret := writeFile(t, "mail-password", "first secret\n")
	path := writeFile(t, "recur.toml", "[mail]\npassword_file = \""+secret+"\"\n")
	m, logs := serveConfigured(t, migratedDir(t, t.TempDir()), path)
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	awaitLine(t, logs, 0, "configuration reloaded", "changed=nothing")

	if err := os.WriteFile(secret, []byte("second secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[mail]\nsmtp_host = \"127.0.0.1\"\npassword_file = \""+secret+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mark := len(logs.String())
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	awaitLine(t, logs, mark, "configuration reloaded", `changed="mail.smtp_host, mail.password"`)
	awaitLine(t, logs, mark, "needs_restart=\"mail.smtp_host (for the sign-in page's note on where mail goes)\"")
	if got, want := m.Config.Mail.Password, "second secret"; got != want {
		t.Errorf("password = %q, want %q", got, want)
	}
	if strings.Contains(logs.String(), "first secret") || strings.Contains(logs.String(), "second secret") {
		t.Errorf("the log holds the secret:\n%s", logs)
	}
}

// TestReload changes recur.toml under a running server and sends the
// signal-driven reload a SIGHUP: the next sign-in mail goes to the SMTP
// server at the new port, the log's level and format change (for the parts'
// loggers made at start too), a setting that needs a restart is named, and
// a file that fails to load leaves the running configuration in place.
func TestReload(t *testing.T) {
	t.Parallel()
	dir := migratedDir(t, t.TempDir())
	if _, _, err := run(t, dir, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	first, second := smtptest.Start(t), smtptest.Start(t)
	path := filepath.Join(t.TempDir(), "recur.toml")
	mailConfig(t, path, first.Addr, "warn", "text", "")

	m, logs := serveConfigured(t, dir, path)
	hup := make(chan os.Signal)
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan struct{})
	go func() { m.Wait(ctx, hup); close(waited) }()
	t.Cleanup(func() { cancel(); <-waited }) // before Close, which runs after

	base := "http://" + m.Addr() + "/api"
	askMail := func() {
		t.Helper()
		res, err := http.Post(base+"/magic-links/mails", "application/json", strings.NewReader(`{"email":"me@example.com"}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 204 {
			t.Fatalf("POST /magic-links/mails = %d, want 204", res.StatusCode)
		}
	}
	askMail()
	first.Code(t, 0)
	if strings.Contains(logs.String(), "mail sent") {
		t.Errorf("an info line was logged at level warn:\n%s", logs)
	}

	mailConfig(t, path, second.Addr, "debug", "json", "[auth]\nsignup = true\n")
	mark := len(logs.String())
	hup <- syscall.SIGHUP
	awaitLine(t, logs, mark, `"msg":"configuration reloaded"`, `"changed":"mail.smtp_port, log.level, log.format"`)
	awaitLine(t, logs, mark, `"level":"WARN"`, `"needs_restart":"auth.signup"`)
	if !m.Logger.Enabled(context.Background(), slog.LevelDebug) {
		t.Error("the log is not at level debug after the reload")
	}
	askMail()
	second.Code(t, 0)
	// The mail queue's logger was made at start; it writes JSON now.
	awaitLine(t, logs, mark, `"msg":"mail sent"`, `"part":"mail"`, `"to":"me@example.com"`)
	if _, codes := first.Counts(); codes != 1 {
		t.Errorf("the first SMTP server got %d codes, want 1: the mail after the reload went to the old port", codes)
	}

	if err := os.WriteFile(path, []byte("[mail\nsmtp_port = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mark = len(logs.String())
	hup <- syscall.SIGHUP
	awaitLine(t, logs, mark, `"level":"ERROR"`, `"msg":"configuration not reloaded; the running one stays"`, "recur.toml line 2")
	askMail()
	second.Code(t, 1)
	if res, err := http.Get(base + "/health-check"); err != nil || res.StatusCode != 200 {
		t.Fatalf("health check after a failed reload: %v %v", res, err)
	}
}

// runAsRecur, set to 1 in a process of this test binary, makes it the
// recur program: its TestMain runs Command, as main does, instead of the
// tests. A test runs the program as a process of its own this way without
// linking the binary again. (It is not a RECUR_ variable: recur refuses
// those it does not know.)
const runAsRecur = "CLI_TEST_RUN_AS_RECUR"

// TestReloadSignal runs the program as a process of its own (see
// runAsRecur) and sends it SIGHUP: it reloads and goes on serving, and
// still stops cleanly on SIGTERM.
func TestReloadSignal(t *testing.T) {
	t.Parallel()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "recur.toml")
	if err := os.WriteFile(path, []byte("[log]\nlevel = \"info\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := newLogBuffer()
	cmd := exec.Command(bin, "serve", "--config", path)
	cmd.Env = []string{runAsRecur + "=1", "RECUR_STORAGE_DATA_DIR=" + t.TempDir(), "RECUR_SERVER_ADDR=127.0.0.1:0", "RECUR_OLLAMA_URL=http://127.0.0.1:1"}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
	})
	awaitLine(t, logs, 0, "recur is listening")

	if err := os.WriteFile(path, []byte("[log]\nlevel = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	awaitLine(t, logs, 0, "configuration reloaded", "changed=log.level")
	select {
	case err := <-exited:
		t.Fatalf("the server ended on SIGHUP: %v\n%s", err, logs)
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) || err != nil {
			t.Fatalf("the server ended with %v after SIGTERM, want exit 0\n%s", err, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not stop within 30 seconds of SIGTERM\n%s", logs)
	}
}
