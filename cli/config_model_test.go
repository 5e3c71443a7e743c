package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/fakeopenai"
	"github.com/recur-journal/recur/pipeline/scripted"
)

// TestModelSection guards [model]: every key from the file, the API key
// from a file, and the variables over the file.
func TestModelSection(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("sk-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := writeTOML(t, "[model]\nprovider = \"openai\"\nurl = \"http://127.0.0.1:8081/v1\"\nname = \"qwen\"\nembed_name = \"nomic\"\n"+
		"api_key_file = \""+keyFile+"\"\ntimeout = \"1m\"\nworkers = 3\n")
	cfg, err := LoadConfig(path, true, []string{"RECUR_MODEL_WORKERS=4", "RECUR_MODEL_NAME=llama"})
	if err != nil {
		t.Fatal(err)
	}
	want := ModelConfig{Provider: "openai", URL: "http://127.0.0.1:8081/v1", Name: "llama", EmbedName: "nomic", APIKey: "sk-from-file",
		Timeout: Duration{time.Minute}, Workers: 4}
	if cfg.Model != want || cfg.Deprecated != "" {
		t.Errorf("model = %+v (deprecated %q), want %+v and no deprecation", cfg.Model, cfg.Deprecated, want)
	}
}

// TestOllamaSectionStillWorks guards configurations written before
// [model]: [ollama] and RECUR_OLLAMA_* still set the model server, with
// one line at start saying what to rename.
func TestOllamaSectionStillWorks(t *testing.T) {
	t.Parallel()
	path := writeTOML(t, "[ollama]\nurl = \"http://10.0.0.5:11434\"\nmodel = \"llama3.1:8b\"\nworkers = 3\n")
	cfg, err := LoadConfig(path, true, []string{"RECUR_OLLAMA_EMBED_MODEL=mxbai-embed-large"})
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig().Model
	want.URL, want.Name, want.EmbedName, want.Workers = "http://10.0.0.5:11434", "llama3.1:8b", "mxbai-embed-large", 3
	if cfg.Model != want {
		t.Errorf("model = %+v, want %+v", cfg.Model, want)
	}
	if !strings.Contains(cfg.Deprecated, "[model]") || !strings.Contains(cfg.Deprecated, "embed_name") {
		t.Errorf("deprecation = %q, want what to rename", cfg.Deprecated)
	}
	t.Run("OneLineAtStart", func(t *testing.T) {
		dir := migratedDir(t, t.TempDir())
		_, stderr, err := runEnv(t, []string{"RECUR_STORAGE_DATA_DIR=" + dir, "RECUR_OLLAMA_URL=http://127.0.0.1:1"}, "", "user", "add", "me@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(stderr, "older names"); n != 1 {
			t.Errorf("%d deprecation lines, want 1:\n%s", n, stderr)
		}
	})
	t.Run("ErrorsNameTheOldKey", func(t *testing.T) {
		_, err := LoadConfig(writeTOML(t, "[ollama]\nworkers = 0\n"), true, nil)
		if err == nil || !strings.Contains(err.Error(), "ollama.workers: must be 1 to 64") {
			t.Errorf("error %v, want one naming ollama.workers", err)
		}
	})
}

// TestModelConfigErrors guards the one-line errors of [model], setting
// both it and [ollama] among them.
func TestModelConfigErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file string
		env        []string
		want       string
	}{
		{"BothSections", "[ollama]\nurl = \"http://a:1\"\n[model]\nname = \"x\"\n", nil, "keep [model] and RECUR_MODEL_*"},
		{"SectionAndVariable", "[ollama]\nmodel = \"x\"\n", []string{"RECUR_MODEL_URL=http://a:1"}, "RECUR_MODEL_URL and the older [ollama]"},
		{"BothVariables", "", []string{"RECUR_OLLAMA_URL=http://a:1", "RECUR_MODEL_NAME=x"}, "remove [ollama] and RECUR_OLLAMA_*"},
		{"Provider", "[model]\nprovider = \"llamacpp\"\n", nil, "model.provider: \"llamacpp\" is neither ollama nor openai"},
		{"URL", "[model]\nurl = \"127.0.0.1:11434\"\n", nil, "model.url: \"127.0.0.1:11434\" is not an http URL"},
		{"OneOfSeveralURLs", "[model]\nurl = \"http://a:1, b:1\"\n", nil, "model.url: \"b:1\" is not an http URL"},
		{"KeyForOllama", "[model]\napi_key = \"sk\"\n", nil, "model.api_key: is sent to an openai server only"},
		{"KeyTwice", "", []string{"RECUR_MODEL_API_KEY=sk", "RECUR_MODEL_API_KEY_FILE=/k"}, "keep one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadConfig(writeTOML(t, c.file), true, c.env)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestImportThroughOpenAI is what an owner with llama-server or vLLM does:
// configure provider openai with a key, import a journal, and see every
// entry analysed through that server, the key sent with each call.
func TestImportThroughOpenAI(t *testing.T) {
	t.Parallel()
	lex, err := scripted.Load("pipeline/testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-import-key"
	fake := fakeopenai.New(t)
	fake.RequireKey(key)
	fake.OnChat(func(req *fakeopenai.ChatRequest) fakeopenai.Reply {
		return fakeopenai.Reply{Content: lex.Answer(scripted.Request(req.Text()))}
	})
	config := writeTOML(t, "[model]\nprovider = \"openai\"\nurl = \""+fake.URL()+"\"\nname = \""+fakeopenai.DefaultModels[0]+"\"\n"+
		"embed_name = \""+fakeopenai.DefaultModels[1]+"\"\napi_key = \""+key+"\"\n")
	env := []string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_LOG_LEVEL=error"}
	if _, _, err := runEnv(t, env, "", "user", "add", "me@example.com", "--config", config); err != nil {
		t.Fatal(err)
	}
	out, progress, err := runEnv(t, env, "", "import", filepath.Join("importer", "testdata", "dayone.zip"), "--user", "me@example.com",
		"--config", config)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, progress)
	}
	if !strings.Contains(out, "Analysed ") || strings.Contains(out, "failed") {
		t.Fatalf("import printed:\n%s", out)
	}
	calls := fake.Calls()
	if len(calls) == 0 {
		t.Fatal("the OpenAI-compatible server got no call")
	}
	for _, c := range calls {
		if c.Authorization != "Bearer "+key {
			t.Fatalf("a call to %s carried %q, want the key", c.Path, c.Authorization)
		}
	}
}

// writeTOML writes text to a recur.toml of the test's own and returns its path.
func writeTOML(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recur.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDoctorOpenAI guards what doctor says of an OpenAI-compatible server:
// that it answers and serves the models, or which key to set when it does
// not serve one.
func TestDoctorOpenAI(t *testing.T) {
	t.Parallel()
	fake := fakeopenai.New(t)
	fake.RequireKey("sk-doctor")
	doctor := func(t *testing.T, name string) (string, error) {
		env := []string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_MODEL_PROVIDER=openai", "RECUR_MODEL_URL=" + fake.URL(),
			"RECUR_MODEL_API_KEY=sk-doctor", "RECUR_MODEL_NAME=" + name, "RECUR_MODEL_EMBED_NAME=" + fakeopenai.DefaultModels[1]}
		out, _, err := runEnv(t, env, "", "doctor")
		return out, err
	}
	if out, err := doctor(t, fakeopenai.DefaultModels[0]); err != nil || !strings.Contains(out, "ok   model server: an OpenAI-compatible server at "+fake.URL()) ||
		!strings.Contains(out, "ok   model "+fakeopenai.DefaultModels[0]+": served") {
		t.Errorf("doctor said %q, %v", out, err)
	}
	if out, err := doctor(t, "absent"); err == nil || !strings.Contains(out, "FAIL model absent: not among the server's models (GET /models); load it there or set [model] name") {
		t.Errorf("doctor said %q, %v", out, err)
	}
}

// TestDoctorPool guards doctor with several model servers: one line for
// each, saying which works.
func TestDoctorPool(t *testing.T) {
	t.Parallel()
	fake := fakeollama.New(t)
	env := []string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_MODEL_URL=" + fake.URL() + ", http://127.0.0.1:1"}
	out, _, err := runEnv(t, env, "", "doctor")
	if err == nil || !strings.Contains(out, "ok   ollama at "+fake.URL()) || !strings.Contains(out, "FAIL ollama at http://127.0.0.1:1") {
		t.Errorf("doctor said %q, %v; want a line for each server", out, err)
	}
}

// TestOllamaSectionServes: an instance configured before [model] existed,
// with [ollama] and its older key names, still serves, says once what to
// rename, and analyses entries through the Ollama it names.
func TestOllamaSectionServes(t *testing.T) {
	t.Parallel()
	lex, err := scripted.Load("pipeline/testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeollama.New(t)
	fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })
	config := writeTOML(t, "[ollama]\nurl = \""+fake.URL()+"\"\nmodel = \"qwen2.5:7b\"\nembed_model = \"nomic-embed-text\"\nworkers = 1\n")
	dir := t.TempDir()
	m := NewMain()
	var stderr bytes.Buffer
	m.Stdout, m.Stderr = io.Discard, &stderr
	m.Env = []string{"RECUR_STORAGE_DATA_DIR=" + dir, "RECUR_SERVER_ADDR=127.0.0.1:0"}
	if err := m.ParseFlags([]string{"serve", "--config", config}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("serve with [ollama]: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { m.Close() })
	if n := strings.Count(stderr.String(), "older names"); n != 1 {
		t.Errorf("%d deprecation lines at start, want 1:\n%s", n, stderr.String())
	}
	if _, _, err := run(t, dir, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	token, _, err := run(t, dir, "", "token", "create", "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	client := apiClient{T: t, Base: "http://" + m.Addr() + "/api", Token: strings.TrimSpace(token)}
	status, body := client.Do("POST", "/captures", `{"text": "My boss criticised my report in front of the team. I felt anxious all afternoon."}`)
	if status != 201 {
		t.Fatalf("POST /captures = %d %v", status, body)
	}
	id := body["data"].(map[string]any)["id"].(string)
	var seen map[string]any
	wait.Eventually(t, 30*time.Second, "the entry processed through the [ollama] server", func() bool {
		_, seen = client.Do("GET", "/captures/"+id, "")
		data, _ := seen["data"].(map[string]any)
		return data["status"] == "processed"
	}, func() string { return fmt.Sprintf("capture %v; calls to the Ollama stand-in %+v", seen, fake.Stats()) })
}
