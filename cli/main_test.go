package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/apitest"
	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/server/openapitest"
	"github.com/recur-journal/recur/store/storetest"
)

// TestMain runs the tests from the repository's root, where the command
// runs from a clone: the fixtures (importer/testdata, pipeline/testdata,
// config.example.toml) are named as the README names them. Passwords are
// hashed cheaply: these tests are about the commands, not the hash.
func TestMain(m *testing.M) {
	if os.Getenv(runAsRecur) == "1" {
		os.Exit(Command(os.Args, "", ""))
	}
	storetest.CheapPasswords()
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// run runs the command line with args against the data folder dir and
// returns what it printed.
func run(t *testing.T, dir string, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runEnv(t, []string{"RECUR_STORAGE_DATA_DIR=" + dir, "RECUR_MODEL_URL=http://127.0.0.1:1"}, stdin, args...)
}

// runEnv runs the command line with the environment env.
func runEnv(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	m := NewMain()
	var out, errb bytes.Buffer
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(stdin), &out, &errb
	m.Env = env
	if err = m.ParseFlags(args); err == nil {
		err = m.Run(context.Background())
		if cerr := m.Close(); err == nil {
			err = cerr
		}
	}
	return out.String(), errb.String(), err
}

func TestConfig(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, text string) string {
		path := filepath.Join(t.TempDir(), "recur.toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Run("Defaults", func(t *testing.T) {
		cfg, err := LoadConfig(filepath.Join(t.TempDir(), "absent.toml"), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Server.Addr, "127.0.0.1:8080"; got != want {
			t.Errorf("addr = %q, want %q", got, want)
		}
		if got, want := cfg.DBPath(), filepath.Join("data", "recur.db"); got != want {
			t.Errorf("db = %q, want %q", got, want)
		}
	})
	t.Run("FileAndEnvironment", func(t *testing.T) {
		path := write(t, "[server]\naddr = \"127.0.0.1:9000\"\n[model]\ntimeout = \"90s\"\nworkers = 3\n")
		cfg, err := LoadConfig(path, true, []string{"RECUR_MODEL_WORKERS=5", "RECUR_AUTH_SIGNUP=true", "HOME=/x"})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Server.Addr != "127.0.0.1:9000" || cfg.Model.Timeout.Duration != 90*time.Second {
			t.Errorf("file values not applied: %+v", cfg)
		}
		if cfg.Model.Workers != 5 || !cfg.Auth.Signup {
			t.Errorf("environment did not win: workers %d signup %v", cfg.Model.Workers, cfg.Auth.Signup)
		}
	})
	t.Run("ExampleIsValidAndComplete", func(t *testing.T) {
		cfg, err := LoadConfig("config.example.toml", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg, DefaultConfig(); !reflect.DeepEqual(got, want) {
			t.Errorf("config.example.toml differs from the defaults:\n%+v\n%+v", got, want)
		}
	})
	for _, c := range []struct {
		name, file string
		env        []string
		want       string
	}{
		{"UnknownKey", "[server]\nadress = \"x\"\n", nil, "server.adress: unknown key"},
		{"UnknownSection", "[colour]\nred = 1\n", nil, "colour"},
		{"BadDuration", "[model]\ntimeout = \"five minutes\"\n", nil, `model.timeout: "five minutes" is not a duration`},
		{"WrongType", "[model]\nworkers = \"two\"\n", nil, "model.workers"},
		{"OutOfRange", "[model]\nworkers = 0\n", nil, "model.workers: must be 1 to 64"},
		{"BadChoice", "[mail]\ntls = \"maybe\"\n", nil, "mail.tls"},
		{"BadSyntax", "[server\n", nil, "line 2: expected"},
		{"UnknownVariable", "", []string{"RECUR_SERVER_PORT=1"}, "RECUR_SERVER_PORT: unknown variable"},
		{"BadVariable", "", []string{"RECUR_MODEL_TIMEOUT=soon"}, `model.timeout: "soon" is not a duration`},
		{"BadTrustedProxy", "[server]\ntrusted_proxies = [\"10.0.0.0/8\", \"proxy.lan\"]\n", nil, `server.trusted_proxies: "proxy.lan" is not an IP address or a CIDR`},
		{"BadTrustedProxyVariable", "", []string{"RECUR_SERVER_TRUSTED_PROXIES=127.0.0.1, 10.0.0.0/40"}, `server.trusted_proxies: "10.0.0.0/40" is not`},
	} {
		t.Run("Err"+c.name, func(t *testing.T) {
			_, err := LoadConfig(write(t, c.file), true, c.env)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is more than one line: %q", err)
			}
		})
	}
	t.Run("ErrUnwritableDataDir", func(t *testing.T) {
		// Even root cannot make a folder under a regular file.
		file := filepath.Join(t.TempDir(), "plain-file")
		os.WriteFile(file, nil, 0o600)
		_, _, err := run(t, filepath.Join(file, "data"), "", "migrate", "up")
		if err == nil || !strings.Contains(err.Error(), "storage.data_dir") {
			t.Fatalf("err = %v, want one naming storage.data_dir", err)
		}
	})
	t.Run("ErrMissingConfigFile", func(t *testing.T) {
		_, _, err := run(t, t.TempDir(), "", "serve", "--config", filepath.Join(t.TempDir(), "nope.toml"))
		if err == nil || !strings.Contains(err.Error(), "nope.toml") {
			t.Fatalf("err = %v, want one naming the file", err)
		}
	})
}

func TestCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t.Run("Version", func(t *testing.T) {
		out, _, err := run(t, dir, "", "version")
		if err != nil || !strings.HasPrefix(out, "recur ") {
			t.Fatalf("version printed %q, %v", out, err)
		}
	})
	t.Run("MigrateStatus", func(t *testing.T) {
		if _, _, err := run(t, dir, "", "migrate", "up"); err != nil {
			t.Fatal(err)
		}
		out, _, err := run(t, dir, "", "migrate", "status")
		if err != nil || !strings.Contains(out, "00001_init.sql") || strings.Contains(out, "pending") {
			t.Fatalf("status printed %q, %v", out, err)
		}
	})
	t.Run("UserAddTwice", func(t *testing.T) {
		if _, _, err := run(t, dir, "", "user", "add", "dup@example.com"); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, dir, "", "user", "add", "dup@example.com")
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("err = %v, want already exists", err)
		}
	})
	t.Run("TokenForUnknownUser", func(t *testing.T) {
		_, _, err := run(t, dir, "", "token", "create", "ghost@example.com")
		if err == nil || !strings.Contains(err.Error(), "recur user add ghost@example.com") {
			t.Fatalf("err = %v, want advice to add the user", err)
		}
	})
	t.Run("TokenUnknownScope", func(t *testing.T) {
		_, _, err := run(t, dir, "", "token", "create", "dup@example.com", "--scopes", "captures:read,everything")
		if err == nil || !strings.Contains(err.Error(), `unknown scope "everything"`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("UnknownCommand", func(t *testing.T) {
		m := NewMain()
		m.Stdout, m.Stderr = io.Discard, io.Discard
		if err := m.ParseFlags([]string{"frobnicate"}); err == nil || !strings.Contains(err.Error(), "recur help") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("Backup", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "backup.tar.gz")
		if _, _, err := run(t, dir, "", "backup", dst); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(dst); err != nil || st.Size() == 0 {
			t.Fatalf("backup file: %v", err)
		}
	})
}

// TestServe follows the README: start the server, add a user and a token
// with the command line, and call the API with the token; an entry posted
// is analysed by the model (a fake Ollama here).
func TestServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, fake, base := startServer(t, dir)

	id, _, err := run(t, dir, "secret password\n", "user", "add", "me@example.com", "--name", "Me", "--password-stdin")
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := run(t, dir, "", "token", "create", "me@example.com", "--scopes", "profile:read,settings:write,captures:read,captures:write,metrics:read", "--expires", "1h")
	if err != nil {
		t.Fatal(err)
	}
	token = strings.TrimSpace(token)
	if strings.Count(token, "|") != 1 || strings.Contains(token, "\n") {
		t.Fatalf("token create printed %q, want one <id>|<secret> line", token)
	}

	doc, err := http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := io.ReadAll(doc.Body)
	doc.Body.Close()
	// Every call is checked against the document the server serves.
	client := apiClient{T: t, Base: base, Token: token, HTTP: &http.Client{Transport: openapitest.New(t, spec)}}
	get := client.Do
	status, me := get("GET", "/users/me", "")
	if status != 200 || me["data"].(map[string]any)["id"] != strings.TrimSpace(id) {
		t.Fatalf("GET /users/me = %d %v, want user %s", status, me, id)
	}
	if got := me["data"].(map[string]any)["has_password"]; got != true {
		t.Errorf("has_password = %v, want true after --password-stdin", got)
	}
	if status, _ := get("PUT", "/settings/me/timezone", `{"value":"Asia/Kolkata"}`); status != 200 {
		t.Fatalf("PUT timezone = %d", status)
	}
	if status, body := get("GET", "/settings/me", ""); status != 403 || !strings.Contains(body["message"].(string), "settings:read") {
		t.Fatalf("GET settings with a token lacking settings:read = %d %v, want 403 naming it", status, body)
	}
	if status, body := get("GET", "/health-check", ""); status != 200 || body["data"].(map[string]any)["status"] != "ok" {
		t.Fatalf("health = %d %v, want 200 ok", status, body)
	}

	status, created := get("POST", "/captures", `{"text":"My boss criticised my report. I felt anxious and skipped lunch."}`)
	if status != 201 {
		t.Fatalf("POST /captures = %d %v", status, created)
	}
	captureID := created["data"].(map[string]any)["id"].(string)
	segs := client.WaitProcessed(captureID)["segments"].([]any)
	if len(segs) != 1 || segs[0].(map[string]any)["text"] != "My boss criticised my report. I felt anxious and skipped lunch." {
		t.Fatalf("segments = %v", segs)
	}
	_, health := get("GET", "/health-check", "")
	queue := health["data"].(map[string]any)["queue"].(map[string]any)
	if queue["queued"] != 0.0 || queue["workers"] != 2.0 {
		t.Errorf("health queue = %v", queue)
	}
	// Ollama answers but its calls fail: the capture waits, the health
	// check says so, and the capture is analysed once calls work again.
	fake.SetFault(fakeollama.LoadingModel())
	_, created = get("POST", "/captures", `{"text":"The train was late again. I was frustrated."}`)
	waiting := created["data"].(map[string]any)["id"].(string)
	ollamaHealth := func() (string, map[string]any) {
		_, body := get("GET", "/health-check", "")
		data := body["data"].(map[string]any)
		return data["status"].(string), data["ollama"].(map[string]any)
	}
	// The gate reports the fault a moment before the run puts the capture
	// back in the queue: wait for both.
	var healthStatus string
	var o map[string]any
	var captureStatus any
	wait.Eventually(t, 10*time.Second, "while calls fail: health degraded with calls_failing, and the capture queued", func() bool {
		healthStatus, o = ollamaHealth()
		_, got := get("GET", "/captures/"+waiting, "")
		captureStatus = got["data"].(map[string]any)["status"]
		return healthStatus == "degraded" && o["calls_failing"] == true && o["reachable"] == true && captureStatus == "queued"
	}, func() string { return fmt.Sprintf("health %s %v, capture %v", healthStatus, o, captureStatus) })
	fake.ClearFault()
	wait.Eventually(t, 10*time.Second, "after calls work again: the capture processed and health ok", func() bool {
		_, got := get("GET", "/captures/"+waiting, "")
		captureStatus = got["data"].(map[string]any)["status"]
		healthStatus, o = ollamaHealth()
		return captureStatus == "processed" && healthStatus == "ok" && o["calls_failing"] == false
	}, func() string { return fmt.Sprintf("capture %v, health %s %v", captureStatus, healthStatus, o) })

	fake.Down()
	if _, body := get("GET", "/health-check", ""); body["data"].(map[string]any)["status"] != "degraded" {
		t.Errorf("health with Ollama down = %v, want degraded", body)
	}

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(base + "/health-check"); err == nil {
		t.Fatal("server still answers after Close")
	}
}

// startServer runs recur serve over the data folder dir on a free port,
// with a fake Ollama answering from the test lexicon, and returns the API's
// base URL. The test stops it with Close, or its cleanup does. env adds
// RECUR_* settings.
func startServer(t *testing.T, dir string, env ...string) (*Main, *fakeollama.Server, string) {
	t.Helper()
	lex, err := scripted.Load("pipeline/testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeollama.New(t)
	fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })
	m := NewMain()
	m.Stdout, m.Stderr = io.Discard, io.Discard
	m.Env = append([]string{"RECUR_STORAGE_DATA_DIR=" + dir, "RECUR_SERVER_ADDR=127.0.0.1:0", "RECUR_OLLAMA_URL=" + fake.URL()}, env...)
	if err := m.ParseFlags([]string{"serve"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, fake, "http://" + m.Addr() + "/api"
}

// apiClient calls the API with a bearer token.
type apiClient = apitest.Client

func TestDoctor(t *testing.T) {
	t.Parallel()
	fake := fakeollama.New(t)
	doctor := func(t *testing.T, env ...string) (string, error) {
		m := NewMain()
		var out bytes.Buffer
		m.Stdout, m.Stderr = &out, io.Discard
		m.Env = append([]string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_OLLAMA_URL=" + fake.URL()}, env...)
		if err := m.ParseFlags([]string{"doctor"}); err != nil {
			t.Fatal(err)
		}
		err := m.Run(context.Background())
		m.Close()
		return out.String(), err
	}
	t.Run("OK", func(t *testing.T) {
		out, err := doctor(t)
		if err != nil || !strings.Contains(out, "ok   model qwen2.5:7b: pulled") || !strings.Contains(out, "Everything Recur needs is in place.") {
			t.Fatalf("doctor said %q, %v", out, err)
		}
	})
	t.Run("ModelMissing", func(t *testing.T) {
		out, err := doctor(t, "RECUR_OLLAMA_MODEL=llama3.1:8b")
		if err == nil || !strings.Contains(out, "FAIL model llama3.1:8b: not pulled; run: ollama pull llama3.1:8b") {
			t.Fatalf("doctor said %q, %v", out, err)
		}
	})
	t.Run("OllamaDown", func(t *testing.T) {
		out, err := doctor(t, "RECUR_OLLAMA_URL=http://127.0.0.1:1")
		if err == nil || !strings.Contains(out, "FAIL ollama: Ollama does not answer at http://127.0.0.1:1") {
			t.Fatalf("doctor said %q, %v", out, err)
		}
	})
}
