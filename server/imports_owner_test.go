package server_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// journalExport is the user's export through the API, without the time it
// was made.
func (h *harness) journalExport(t *testing.T, token string) map[string]any {
	t.Helper()
	r := h.do("GET", "/api/users/me/export", token, nil)
	if r.Status != 200 {
		t.Fatalf("export = %d %s", r.Status, r.Body)
	}
	doc := r.JSON(t)
	delete(doc, "exported_at")
	return doc
}

// TestImportRefusesAnotherUsersRecords: an export crafted to refer to
// another user's record, in any field that holds an id, is refused with 422
// naming the record, imports nothing, and leaves the other user's journal
// and export as they were.
func TestImportRefusesAnotherUsersRecords(t *testing.T) {
	h := newHarness(t)
	victim := storetest.MustAnalysedJournal(t, h.store, "victim@example.com")
	victimToken := storetest.MustCreateToken(t, h.store, victim.ID)
	raw := storetest.MustExport(t, h.store, victim.ID)
	before := h.journalExport(t, victimToken)
	for _, c := range storetest.OwnerAttacks {
		t.Run(c.Name, func(t *testing.T) {
			u := storetest.MustCreateUser(t, h.store, strings.ToLower(c.Name)+"@example.com")
			token := storetest.MustCreateToken(t, h.store, u.ID)
			r := h.upload("/api/captures/import?filename=export.json", token, "application/json", c.Doc(t, raw))
			var body struct {
				Errors map[string][]string `json:"errors"`
			}
			json.Unmarshal(r.Body, &body)
			if r.Status != 422 || len(body.Errors["file"]) != 1 || !strings.Contains(body.Errors["file"][0], c.Refusal()) {
				t.Errorf("import = %d %s; want 422 under file naming %q", r.Status, r.Body, c.Refusal())
			}
			mine := h.journalExport(t, token)
			for _, table := range storetest.ExportTables {
				if rows, _ := mine[table].([]any); len(rows) != 0 {
					t.Errorf("a refused import wrote %d %s", len(rows), table)
				}
			}
			if after := h.journalExport(t, victimToken); !reflect.DeepEqual(after, before) {
				t.Errorf("the other user's export changed:\n%v\nwas\n%v", after, before)
			}
		})
	}
}
