package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// TestImportCommandRefusesAnotherUsersRecords: recur import of an export
// crafted to refer to another user's record, in any field that holds an
// id, imports nothing and names the record; the other user's export stays
// as it was, a backup of the instance restores with it unchanged, and it
// still imports into a new instance.
func TestImportCommandRefusesAnotherUsersRecords(t *testing.T) {
	t.Parallel()
	dir := migratedDir(t, t.TempDir())
	storetest.MustAnalysedJournal(t, storetest.MustOpenAt(t, filepath.Join(dir, "recur.db"), nil), "me@example.com")
	before := exportDoc(t, dir)
	raw, _, err := run(t, dir, "", "export", "--user", "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range storetest.OwnerAttacks {
		t.Run(c.Name, func(t *testing.T) {
			email := fmt.Sprintf("crafted%d@example.com", i)
			if _, _, err := run(t, dir, "", "user", "add", email); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "export.json")
			if err := os.WriteFile(file, c.Doc(t, []byte(raw)), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := run(t, dir, "", "import", file, "--user", email, "--no-wait")
			if err == nil || !strings.Contains(err.Error(), "nothing was imported") || !strings.Contains(err.Error(), c.Refusal()) {
				t.Errorf("import: %v; want nothing imported, naming %q", err, c.Refusal())
			}
			out, _, err := run(t, dir, "", "export", "--user", email)
			var mine map[string]any
			if err != nil || json.Unmarshal([]byte(out), &mine) != nil {
				t.Fatalf("export of the importing account: %v\n%s", err, out)
			}
			for _, table := range storetest.ExportTables {
				if rows, _ := mine[table].([]any); len(rows) != 0 {
					t.Errorf("a refused import wrote %d %s", len(rows), table)
				}
			}
			if got := exportDoc(t, dir); !reflect.DeepEqual(got, before) {
				t.Errorf("the other user's export changed:\n%v\nwas\n%v", got, before)
			}
		})
	}
	t.Run("Restore", func(t *testing.T) {
		archive := filepath.Join(t.TempDir(), "recur-backup.tar.gz")
		if _, _, err := run(t, dir, "", "backup", archive); err != nil {
			t.Fatal(err)
		}
		restored := filepath.Join(t.TempDir(), "restored")
		if _, _, err := run(t, restored, "", "restore", archive); err != nil {
			t.Fatalf("restore: %v", err)
		}
		if got := exportDoc(t, restored); !reflect.DeepEqual(got, before) {
			t.Errorf("the restored instance's export differs:\n%v\nwant\n%v", got, before)
		}

		file := filepath.Join(t.TempDir(), "export.json")
		if _, _, err := run(t, restored, "", "export", "--user", "me@example.com", "--output", file); err != nil {
			t.Fatal(err)
		}
		moved := migratedDir(t, t.TempDir())
		if _, _, err := run(t, moved, "", "user", "add", "me@example.com"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, moved, "", "import", file, "--user", "me@example.com", "--no-wait"); err != nil {
			t.Fatalf("the other user's export does not import into a new instance: %v", err)
		}
		got, want := exportDoc(t, moved), before
		delete(got, "user")
		delete(want, "user")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the other user's export imported into a new instance differs:\n%v\nwant\n%v", got, want)
		}
	})
}
