package cli

import (
	"bytes"
	"context"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/recur-journal/recur/pipeline/fakeollama"
)

func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	t.Run("FromGitCheckout", func(t *testing.T) {
		info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "6a4a40512b5e2f0c0f7d2f3f6e0b8a1c9d7e4f21"},
			{Key: "vcs.time", Value: "2026-11-23T16:31:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}
		var out bytes.Buffer
		if err := buildFrom(info).print(&out); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"recur v1.2.3\n", "commit:   6a4a40512b5e2f0c0f7d2f3f6e0b8a1c9d7e4f21\n",
			"time:     2026-11-23T16:31:00Z\n", "modified: true\n", "go:       go1.26.8\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("version printed %q, want a line %q", out.String(), want)
			}
		}
	})
	t.Run("LinkedWins", func(t *testing.T) {
		// A release or the image sets them when linking: they win over the
		// pseudo-version and the commit the toolchain stamped.
		stamped := buildFrom(&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261123163100-6a4a40512b5e"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "6a4a40512b5e"}}})
		if b := stamped.linked("v1.2.3", "0f1e2d3c"); b.Version != "v1.2.3" || b.Commit != "0f1e2d3c" {
			t.Errorf("linked = %+v, want v1.2.3 at 0f1e2d3c", b)
		}
		if b := stamped.linked("", ""); b != stamped {
			t.Errorf("linked with nothing set = %+v, want %+v", b, stamped)
		}
	})
	t.Run("WithoutVCS", func(t *testing.T) {
		b := buildFrom(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})
		if got, want := b.Version, "dev"; got != want {
			t.Errorf("version = %q, want %q", got, want)
		}
		var out bytes.Buffer
		b.print(&out)
		if !strings.Contains(out.String(), "commit:   unknown") || !strings.Contains(out.String(), "modified: false") {
			t.Errorf("version printed %q", out.String())
		}
	})
}

func TestHealthCommand(t *testing.T) {
	t.Parallel()
	health := func(t *testing.T, env []string, args ...string) (string, error) {
		out, _, err := runEnv(t, env, "", append([]string{"health"}, args...)...)
		return out, err
	}
	t.Run("OK", func(t *testing.T) {
		m, _, _ := startServer(t, t.TempDir())
		out, err := health(t, []string{"RECUR_SERVER_ADDR=" + m.Addr()})
		if err != nil || out != "ok\n" {
			t.Fatalf("health printed %q, %v; want ok", out, err)
		}
	})
	t.Run("DegradedIsHealthy", func(t *testing.T) {
		m, fake, _ := startServer(t, t.TempDir())
		fake.Down()
		out, err := health(t, []string{"RECUR_SERVER_ADDR=" + m.Addr()})
		if err != nil || out != "degraded\n" {
			t.Fatalf("health printed %q, %v; want degraded and no error", out, err)
		}
	})
	t.Run("ErrDatabaseFails", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"data":{"status":"failing","database":{"ok":false}}}`)
		}))
		defer srv.Close()
		out, err := health(t, nil, "--url", srv.URL+"/api/health-check")
		if err == nil || out != "failing\n" || !strings.Contains(err.Error(), "503") {
			t.Fatalf("health printed %q, %v; want failing and an error naming 503", out, err)
		}
	})
	t.Run("ErrNotRecur", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") }))
		defer srv.Close()
		if _, err := health(t, nil, "--url", srv.URL+"/api/health-check"); err == nil || !strings.Contains(err.Error(), "without a health report") {
			t.Fatalf("err = %v, want one saying there was no health report", err)
		}
	})
	t.Run("ErrNoServer", func(t *testing.T) {
		m, _, _ := startServer(t, t.TempDir())
		addr := m.Addr()
		m.Close()
		if _, err := health(t, []string{"RECUR_SERVER_ADDR=" + addr}); err == nil || !strings.Contains(err.Error(), "does not answer") {
			t.Fatalf("err = %v, want one saying the server does not answer", err)
		}
	})
	t.Run("AsksLoopbackForEveryAddress", func(t *testing.T) {
		for addr, want := range map[string]string{
			"0.0.0.0:8080":   "http://127.0.0.1:8080/api/health-check",
			"[::]:9000":      "http://[::1]:9000/api/health-check",
			":8081":          "http://127.0.0.1:8081/api/health-check",
			"10.0.0.5:8080":  "http://10.0.0.5:8080/api/health-check",
			"127.0.0.1:8080": "http://127.0.0.1:8080/api/health-check",
		} {
			if got := localHealthURL(addr); got != want {
				t.Errorf("localHealthURL(%q) = %q, want %q", addr, got, want)
			}
		}
	})
}

// TestStartupSaysWhatFixesOllama guards the one start-up line that tells
// the owner Ollama is away or lacks a model, and the command that fixes it.
func TestStartupSaysWhatFixesOllama(t *testing.T) {
	t.Parallel()
	fake := fakeollama.New(t)
	serve := func(t *testing.T, env ...string) string {
		m := NewMain()
		var errb bytes.Buffer
		m.Stdout, m.Stderr = io.Discard, &errb
		m.Env = append([]string{"RECUR_STORAGE_DATA_DIR=" + t.TempDir(), "RECUR_SERVER_ADDR=127.0.0.1:0"}, env...)
		if err := m.ParseFlags([]string{"serve"}); err != nil {
			t.Fatal(err)
		}
		if err := m.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		m.Close()
		return errb.String()
	}
	linesWith := func(log, s string) []string {
		var found []string
		for _, l := range strings.Split(log, "\n") {
			if strings.Contains(l, s) {
				found = append(found, l)
			}
		}
		return found
	}
	t.Run("OllamaDown", func(t *testing.T) {
		log := serve(t, "RECUR_OLLAMA_URL=http://127.0.0.1:1")
		if got := linesWith(log, "ollama serve"); len(got) != 1 || !strings.Contains(got[0], "level=WARN") ||
			!strings.Contains(got[0], "http://127.0.0.1:1") {
			t.Fatalf("want one warning naming the URL and `ollama serve`; log:\n%s", log)
		}
	})
	t.Run("ModelMissing", func(t *testing.T) {
		log := serve(t, "RECUR_OLLAMA_URL="+fake.URL(), "RECUR_OLLAMA_MODEL=llama3.1:8b")
		if got := linesWith(log, "ollama pull llama3.1:8b"); len(got) != 1 {
			t.Fatalf("want one line with `ollama pull llama3.1:8b`; log:\n%s", log)
		}
	})
	t.Run("AllWell", func(t *testing.T) {
		log := serve(t, "RECUR_OLLAMA_URL="+fake.URL())
		if got := linesWith(log, "ollama_url="); len(got) != 0 {
			t.Fatalf("want no word of Ollama when it answers with both models; got %q", got)
		}
	})
}

func TestStateDirectoryIsTheDefaultDataFolder(t *testing.T) {
	t.Parallel()
	absent := filepath.Join(t.TempDir(), "absent.toml")
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"Unset", nil, "./data"},
		{"Set", []string{"STATE_DIRECTORY=/var/lib/recur"}, "/var/lib/recur"},
		{"FirstOfSeveral", []string{"STATE_DIRECTORY=/var/lib/recur:/var/lib/other"}, "/var/lib/recur"},
		{"VariableWins", []string{"STATE_DIRECTORY=/var/lib/recur", "RECUR_STORAGE_DATA_DIR=/srv/recur"}, "/srv/recur"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := LoadConfig(absent, false, c.env)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Storage.DataDir; got != c.want {
				t.Errorf("data_dir = %q, want %q", got, c.want)
			}
		})
	}
}

// TestCARootsEmbedded guards mail over TLS from a scratch image, which has
// no CA certificates: the binary must carry its own as x509's fallback, and
// install them when the configuration names an SMTP server (or Ollama at
// https). x509.SetFallbackRoots may be called once per process, so a second
// call panics exactly when the binary already installed them.
func TestCARootsEmbedded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  string
		want bool
	}{
		{"RECUR_MAIL_SMTP_HOST=mail.example.com", true},
		{"RECUR_OLLAMA_URL=https://ollama.example.com", true},
		{"RECUR_OLLAMA_URL=HTTPS://ollama.example.com", true},
		{"RECUR_OLLAMA_URL=http://127.0.0.1:11434", false},
	} {
		m := NewMain()
		m.Env = []string{c.env, "RECUR_STORAGE_DATA_DIR=" + t.TempDir()}
		if err := m.loadConfig(); err != nil {
			t.Fatal(err)
		}
		if got := needsRoots(m.Config); got != c.want {
			t.Errorf("%s: needs CA roots = %v, want %v", c.env, got, c.want)
		}
	}
	m := NewMain()
	m.Env = []string{"RECUR_MAIL_SMTP_HOST=mail.example.com", "RECUR_STORAGE_DATA_DIR=" + t.TempDir()}
	if err := m.loadConfig(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no fallback CA roots are installed for a configuration with an SMTP server")
		}
	}()
	x509.SetFallbackRoots(x509.NewCertPool())
}
