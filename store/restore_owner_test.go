package store_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// journalTables is the export without its head, which names the time it
// was made.
func journalTables(t *testing.T, s *store.Store, userID string) map[string][]map[string]any {
	t.Helper()
	return storetest.ReadExport(t, exportBytes(t, s, userID)).Tables
}

// victimJournal is a store with a user's journal that holds a record of
// every kind, and the user's export.
func victimJournal(t *testing.T) (*store.Store, *store.User, []byte, *storetest.Export) {
	t.Helper()
	s := storetest.MustOpen(t)
	a := storetest.MustAnalysedJournal(t, s, "victim@example.com")
	raw := exportBytes(t, s, a.ID)
	return s, a, raw, storetest.ReadExport(t, raw)
}

// TestRestoreRefusesAnotherUsersRecords: a document that refers to a
// record of another user, in any field that holds an id, is refused naming
// the record and the field, and writes nothing: the other user's journal
// and export stay as they were, and their export still restores.
func TestRestoreRefusesAnotherUsersRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, a, raw, victim := victimJournal(t)
	for _, c := range storetest.OwnerAttacks {
		t.Run(c.Name, func(t *testing.T) {
			b := storetest.MustCreateUser(t, s, strings.ToLower(c.Name)+"@example.com")
			_, err := s.Restore(ctx, b.ID, "crafted", store.OpenBytes(c.Doc(t, raw)))
			var se *store.Error
			want := c.Refusal()
			if !asError(err, &se) || se.Code != store.EINVALID || se.Field != "file" ||
				!strings.Contains(se.Message, want) || !strings.Contains(se.Message, "is not the id of a record of this export") {
				t.Errorf("err = %v; want EINVALID under file saying %q is not the id of a record of this export", err, want)
			}
			for table, rows := range journalTables(t, s, b.ID) {
				if len(rows) != 0 {
					t.Errorf("a refused import wrote %d %s", len(rows), table)
				}
			}
			got := journalTables(t, s, a.ID)
			for _, table := range storetest.ExportTables {
				if !reflect.DeepEqual(got[table], victim.Tables[table]) {
					t.Errorf("the victim's %s changed:\n%v\nwere\n%v", table, got[table], victim.Tables[table])
				}
			}
		})
	}
	t.Run("VictimExportRestores", func(t *testing.T) {
		fresh := storetest.MustOpen(t)
		u := storetest.MustCreateUser(t, fresh, "moved@example.com")
		if _, err := fresh.Restore(ctx, u.ID, "restore", store.OpenBytes(exportBytes(t, s, a.ID))); err != nil {
			t.Fatalf("the victim's export does not restore: %v", err)
		}
		if got := journalTables(t, fresh, u.ID); !reflect.DeepEqual(got, victim.Tables) {
			t.Fatal("the victim's export restored into a new instance differs")
		}
	})
}

// TestRestoreTakesNoOtherUsersID: a document whose record has, as its own
// id, the id of another user's record of the same kind is restored under
// new ids: nothing joins or changes the other user's records.
func TestRestoreTakesNoOtherUsersID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, a, raw, victim := victimJournal(t)
	for _, table := range storetest.ExportTables[1:] {
		if table == "segment_tags" {
			continue // no id of its own
		}
		t.Run(table, func(t *testing.T) {
			id := victim.ID(t, table, 0)
			doc := storetest.CraftExport(t, raw, table, 0, map[string]any{"id": id})
			b := storetest.MustCreateUser(t, s, table+"@example.com")
			if _, err := s.Restore(ctx, b.ID, "crafted", store.OpenBytes(doc)); err != nil {
				t.Fatalf("restore: %v", err)
			}
			if got := journalTables(t, s, a.ID); !reflect.DeepEqual(got, victim.Tables) {
				t.Fatal("the other user's export changed")
			}
			mine := exportBytes(t, s, b.ID)
			if strings.Contains(string(mine), id) {
				t.Fatalf("the restored journal holds the other user's id %s", id)
			}
			for table, rows := range storetest.ReadExport(t, mine).Tables {
				if got, want := len(rows), len(victim.Tables[table]); got != want {
					t.Errorf("restored %d %s, want %d", got, table, want)
				}
			}
		})
	}
}

// TestRestoreRefusesIDsTwiceOrMissing: two records of a kind with one id,
// or a record without one, are refused naming the record; an id that is
// not one of the document's is quoted only in part when it is long.
func TestRestoreRefusesIDsTwiceOrMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	a := storetest.MustAnalysedJournal(t, s, "source@example.com")
	raw := string(exportBytes(t, s, a.ID))
	v := storetest.ReadExport(t, []byte(raw))
	first := v.ID(t, "captures", 0)
	twice := strings.ReplaceAll(raw, v.ID(t, "captures", 1), first)
	missing := strings.Replace(raw, `"id":"`+v.ID(t, "captures", 2)+`",`, "", 1)
	long := strings.Replace(raw, `"capture_id":"`+v.ID(t, "captures", 0)+`"`, `"capture_id":"`+strings.Repeat("x", 10000)+`"`, 1)
	for _, c := range []struct{ name, doc, want string }{
		{"Twice", twice, `captures[1]: id "` + first + `" is the id of an earlier record of captures too`},
		{"Missing", missing, "captures[2]: id is missing"},
		{"LongReference", long, `segments[0]: capture_id "` + strings.Repeat("x", 40) + `"… is not the id of a record`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fresh := storetest.MustOpen(t)
			u := storetest.MustCreateUser(t, fresh, "me@example.com")
			_, err := fresh.Restore(ctx, u.ID, "broken", store.OpenBytes([]byte(c.doc)))
			if store.ErrorCode(err) != store.EINVALID || !strings.Contains(store.ErrorMessage(err), c.want) {
				t.Fatalf("err = %v; want EINVALID saying %q", err, c.want)
			}
			if ids := captureIDs(t, fresh, u.ID); len(ids) != 0 {
				t.Fatalf("a refused restore wrote %d captures", len(ids))
			}
		})
	}
}

// TestRestoreResolvesEveryReference: every column of an exported table
// that holds another record's id is checked by a restore, so that a column
// a later migration adds cannot name another user's record.
func TestRestoreResolvesEveryReference(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	missing, err := s.UnresolvedReferences(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("a restore does not check %v: list them in exportTables' ids", missing)
	}
}
