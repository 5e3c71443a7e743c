package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
)

// TestMoveInAndOut is what a new user does: move a Day One journal in with
// one command and watch it analysed, take everything out with another, and
// bring that export into a new instance with nothing lost.
func TestMoveInAndOut(t *testing.T) {
	t.Parallel()
	lex, err := scripted.Load("pipeline/testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeollama.New(t)
	fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })
	instance := func() []string {
		return []string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_OLLAMA_URL=" + fake.URL(), "RECUR_LOG_LEVEL=error"}
	}
	first := instance()
	if _, _, err := runEnv(t, first, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join("importer", "testdata", "dayone.zip")

	out, progress, err := runEnv(t, first, "", "import", journal, "--user", "me@example.com")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, progress)
	}
	if !strings.Contains(out, "entries (Day One)") || !strings.Contains(out, "Analysed ") {
		t.Fatalf("import printed:\n%s", out)
	}
	if !strings.Contains(progress, "100%") || !strings.Contains(progress, "[##") {
		t.Errorf("no progress bar reached 100%%:\n%s", progress)
	}

	out, _, err = runEnv(t, first, "", "import", journal, "--user", "me@example.com")
	if err != nil || !strings.Contains(out, "Imported 0 entries") || !strings.Contains(out, "already here") {
		t.Fatalf("second import printed %q, %v; want nothing new", out, err)
	}

	exported, _, err := runEnv(t, first, "", "export", "--user", "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(exported), &doc); err != nil {
		t.Fatalf("export is not JSON: %v", err)
	}
	captures := doc["captures"].([]any)
	if len(captures) == 0 || len(doc["segments"].([]any)) == 0 {
		t.Fatalf("export holds %d captures and no segments", len(captures))
	}
	for _, c := range captures {
		if st := c.(map[string]any)["status"]; st != "processed" {
			t.Fatalf("an exported capture is %v after the import finished", st)
		}
	}

	file := filepath.Join(t.TempDir(), "export.json")
	if _, msg, err := runEnv(t, first, "", "export", "--user", "me@example.com", "--output", file); err != nil || !strings.Contains(msg, "recur import") {
		t.Fatalf("export --output: %v %q", err, msg)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v, mode %v; want readable by its owner alone", err, st.Mode())
	}

	second := instance()
	if _, _, err := runEnv(t, second, "", "user", "add", "moved@example.com"); err != nil {
		t.Fatal(err)
	}
	out, _, err = runEnv(t, second, "", "import", file, "--user", "moved@example.com")
	if err != nil || !strings.Contains(out, "with everything found in them (Recur export)") {
		t.Fatalf("import of the export printed %q, %v", out, err)
	}
	again, _, err := runEnv(t, second, "", "export", "--user", "moved@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var doc2 map[string]any
	json.Unmarshal([]byte(again), &doc2)
	for _, d := range []map[string]any{doc, doc2} {
		delete(d, "user")
		delete(d, "exported_at")
	}
	if !reflect.DeepEqual(doc, doc2) {
		t.Fatal("the export imported into a new instance and exported again differs")
	}
}

func TestImportMistakes(t *testing.T) {
	t.Parallel()
	dir := migratedDir(t, t.TempDir())
	if _, _, err := run(t, dir, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"NoUserFlag", []string{"import", "importer/testdata/jrnl.json"}, "--user EMAIL"},
		{"UnknownUser", []string{"import", "importer/testdata/jrnl.json", "--user", "ghost@example.com"}, "recur user add ghost@example.com"},
		{"MissingFile", []string{"import", "nowhere.json", "--user", "me@example.com"}, "cannot read nowhere.json"},
		{"Malformed", []string{"import", "importer/testdata/dayone-no-date.json", "--user", "me@example.com"}, "nothing was imported: "},
		{"ExportUnknownUser", []string{"export", "--user", "ghost@example.com"}, "recur user add"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, dir, "", c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
	out, _, err := run(t, dir, "", "export", "--user", "me@example.com")
	var doc map[string]any
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || len(doc["captures"].([]any)) != 0 {
		t.Fatalf("after refused imports the export is %q, %v; want no captures", out, err)
	}
}
