package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/store"
)

// TestImportTakesAnExportOverTheUploadCap: a journal whose export is larger
// than an upload may be (64 MiB) comes back whole with recur import.
func TestImportTakesAnExportOverTheUploadCap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes and restores an export of over 64 MiB")
	}
	first := []string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_LOG_LEVEL=error"}
	if _, _, err := runEnv(t, first, "", "user", "add", "me@example.com"); err != nil {
		t.Fatal(err)
	}
	// Entries of 9,000 characters, as many as make an export past the cap.
	// The characters are <, & and >, which the export writes as six bytes
	// each (\u003c) and the search index skips: the journal stays small and
	// quick to write while its export is large (its size is checked below).
	const entries = 1300
	s, err := store.Open(store.Options{Path: filepath.Join(strings.TrimPrefix(first[0], "RECUR_STORAGE_DATA_DIR="), "recur.db"), Migrations: migrations.FS})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u, err := s.FindUserByEmail(ctx, "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	list := make([]store.ImportEntry, entries)
	start := time.Date(2016, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range list {
		list[i] = store.ImportEntry{OccurredAt: start.Add(time.Duration(i) * 11 * time.Hour), Source: fmt.Sprint("entry ", i+1),
			Text: fmt.Sprintf("Entry %d: ", i) + strings.Repeat("<&>", 3000)}
	}
	if res, err := s.ImportCaptures(ctx, u.ID, "import", list); err != nil || res.Imported != entries {
		t.Fatalf("ImportCaptures = %+v, %v", res, err)
	}
	s.Close()

	file := filepath.Join(t.TempDir(), "export.json")
	if _, _, err := runEnv(t, first, "", "export", "--user", "me@example.com", "--output", file); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(file); err != nil || st.Size() <= importer.MaxJSONBytes {
		t.Fatalf("export of %d bytes (%v); want over the upload cap of %d", st.Size(), err, importer.MaxJSONBytes)
	}

	second := []string{"RECUR_STORAGE_DATA_DIR=" + migratedDir(t, t.TempDir()), "RECUR_LOG_LEVEL=error"}
	if _, _, err := runEnv(t, second, "", "user", "add", "moved@example.com"); err != nil {
		t.Fatal(err)
	}
	out, msg, err := runEnv(t, second, "", "import", file, "--user", "moved@example.com", "--no-wait")
	if want := fmt.Sprintf("Imported %d entries with everything found in them (Recur export)", entries); err != nil || !strings.Contains(out, want) {
		t.Fatalf("import of the export printed %q %q, %v; want %q", out, msg, err, want)
	}
}
