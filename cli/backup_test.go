package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/internal/tartest"
)

// analysedCapture adds me@example.com with a token to the server running over
// dir at base, posts a capture and returns the client and the capture once
// it is processed.
func analysedCapture(t *testing.T, dir, base string) (apiClient, map[string]any) {
	t.Helper()
	if _, _, err := run(t, dir, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	token, _, err := run(t, dir, "", "token", "create", "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	client := apiClient{T: t, Base: base, Token: strings.TrimSpace(token)}
	status, created := client.Do("POST", "/captures", `{"text":"My boss criticised my report. I felt anxious and skipped lunch."}`)
	if status != 201 {
		t.Fatalf("POST /captures = %d %v", status, created)
	}
	return client, client.WaitProcessed(created["data"].(map[string]any)["id"].(string))
}

// TestBackupRestore backs up a data folder while the server runs on it, and
// restores the archive into a new folder: the restored instance has the
// same users, captures and secret, and a token made before still works.
func TestBackupRestore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	m, _, base := startServer(t, dir)
	client, before := analysedCapture(t, dir, base)
	captureID := before["id"].(string)

	archive := filepath.Join(t.TempDir(), "recur-backup.tar.gz")
	out, _, err := run(t, dir, "", "backup", archive)
	if err != nil {
		t.Fatalf("backup while serving: %v", err)
	}
	if !strings.Contains(out, "Wrote "+archive) || !strings.Contains(out, "recur restore "+archive) {
		t.Errorf("backup printed %q, want what it wrote and how to restore", out)
	}
	if _, _, err := run(t, dir, "", "backup", archive); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second backup to the same file: %v, want a refusal", err)
	}
	journal := exportDoc(t, dir)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	out, _, err = run(t, restored, "", "restore", archive)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	if !strings.Contains(out, "recur serve") {
		t.Errorf("restore printed %q, want what to run next", out)
	}
	if got, want := readFile(t, filepath.Join(restored, "secret.key")), readFile(t, filepath.Join(dir, "secret.key")); !bytes.Equal(got, want) {
		t.Errorf("restored secret.key differs from the original")
	}
	if got := exportDoc(t, restored); !reflect.DeepEqual(got, journal) {
		t.Errorf("restored journal differs:\n%v\nwant\n%v", got, journal)
	}
	_, _, base = startServer(t, restored)
	client.Base = base
	if status, got := client.Do("GET", "/captures/"+captureID, ""); status != 200 || !reflect.DeepEqual(got["data"], before) {
		t.Errorf("GET the capture on the restored instance with the old token = %d %v, want %v", status, got, before)
	}
	if _, _, err := run(t, restored, "", "restore", archive); err == nil || !strings.Contains(err.Error(), "already holds recur.db") {
		t.Errorf("restore over a restored folder: %v, want a refusal", err)
	}
}

// exportDoc is the user's journal in dir as exported, without the moment of export.
func exportDoc(t *testing.T, dir string) map[string]any {
	t.Helper()
	out, _, err := run(t, dir, "", "export", "--user", "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc["captures"].([]any)) == 0 {
		t.Fatal("the export holds no captures")
	}
	delete(doc, "exported_at")
	return doc
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRestoreRefuses feeds restore archives it must turn down, and checks
// that each leaves the data folder as it was.
func TestRestoreRefuses(t *testing.T) {
	t.Parallel()
	src := migratedDir(t, t.TempDir())
	if _, _, err := run(t, src, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "good.tar.gz")
	if _, _, err := run(t, src, "", "backup", good); err != nil {
		t.Fatal(err)
	}
	members := tartest.Read(t, good)
	if len(members) != 2 || members[0].Name != "secret.key" || members[1].Name != "recur.db" {
		t.Fatalf("backup members = %v, want secret.key and recur.db", members)
	}
	key, db := members[0], members[1]
	damagedDB := tartest.Member{Name: "recur.db", Data: append(make([]byte, 100), db.Data[100:]...)}
	goodBytes := readFile(t, good)
	flipped := bytes.Clone(goodBytes)
	flipped[len(flipped)/2] ^= 0xff

	for _, c := range []struct {
		name     string
		members  []tartest.Member // written as the archive, unless raw is set
		raw      []byte
		existing []string // files in the data folder before; nil: the folder is absent
		want     string
	}{
		{name: "FolderHoldsDatabase", raw: goodBytes, existing: []string{"recur.db"}, want: "already holds recur.db"},
		{name: "FolderHoldsSecret", raw: goodBytes, existing: []string{"secret.key"}, want: "already holds secret.key"},
		{name: "NotGzip", raw: []byte("recur.db and secret.key"), want: "not gzip"},
		{name: "Truncated", raw: goodBytes[:len(goodBytes)/2], want: "damaged archive"},
		{name: "Tampered", raw: flipped, want: "damaged archive"},
		{name: "DatabaseDamaged", members: []tartest.Member{key, damagedDB}, existing: []string{}, want: "database"},
		{name: "BadKey", members: []tartest.Member{{Name: "secret.key", Data: []byte("hello\n")}, db}, want: "not a secret Recur made"},
		{name: "MissingKey", members: []tartest.Member{db}, want: "secret.key is missing"},
		{name: "MissingDatabase", members: []tartest.Member{key}, want: "recur.db is missing"},
		{name: "Traversal", members: []tartest.Member{key, {Name: "../recur.db", Data: db.Data}}, existing: []string{}, want: "has a path"},
		{name: "AbsolutePath", members: []tartest.Member{key, db, {Name: "/tmp/evil", Data: []byte("x")}}, want: "has a path"},
		{name: "OtherMember", members: []tartest.Member{key, db, {Name: "notes.txt", Data: []byte("x")}}, want: "not part of a backup"},
		{name: "Twice", members: []tartest.Member{key, db, key}, want: "holds secret.key twice"},
		{name: "KeyTooBig", members: []tartest.Member{db, {Name: "secret.key", Data: bytes.Repeat([]byte("a"), 5000)}}, want: "more than"},
	} {
		t.Run("Err"+c.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "data")
			if c.existing != nil {
				os.Mkdir(dir, 0o700)
				for _, name := range c.existing {
					os.WriteFile(filepath.Join(dir, name), []byte("mine"), 0o600)
				}
			}
			archive := filepath.Join(t.TempDir(), "backup.tar.gz")
			if c.raw != nil {
				os.WriteFile(archive, c.raw, 0o600)
			} else {
				tartest.Write(t, archive, c.members)
			}
			_, _, err := run(t, dir, "", "restore", archive)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("restore: %v, want an error saying %q", err, c.want)
			}
			var want []string
			if c.existing != nil {
				want = append(want, "data")
				for _, name := range c.existing {
					want = append(want, filepath.Join("data", name))
				}
			}
			if left := listTree(t, parent); !slices.Equal(left, want) {
				t.Errorf("restore left %v, want %v", left, want)
			}
			for _, name := range c.existing {
				if got := string(readFile(t, filepath.Join(dir, name))); got != "mine" {
					t.Errorf("%s was changed to %q", name, got)
				}
			}
		})
	}
}

// listTree lists every file and folder under root, by its path inside root.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var list []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && path != root {
			rel, _ := filepath.Rel(root, path)
			list = append(list, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}
