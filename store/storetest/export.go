package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/recur-journal/recur/store"
)

// ExportTables are the parts of an export, in their order.
var ExportTables = []string{"settings", "categories", "tags", "captures", "segments", "segment_tags", "patterns", "correlations", "flows"}

// exportIDs are the fields of each part that hold ids of records.
var exportIDs = map[string][]string{
	"categories":   {"id"},
	"tags":         {"id", "category_id"},
	"captures":     {"id"},
	"segments":     {"id", "capture_id", "tag_ids"},
	"segment_tags": {"segment_id", "tag_id"},
	"patterns":     {"id", "category_id"},
	"correlations": {"id", "pattern_id", "tag_id"},
	"flows":        {"id", "pattern_id", "segment_id"},
}

// Export is an export document read back: each part's records as JSON
// objects, numbers kept as json.Number.
type Export struct {
	Head   map[string]any
	Tables map[string][]map[string]any
}

// ReadExport reads an export document.
func ReadExport(tb testing.TB, raw []byte) *Export {
	tb.Helper()
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		tb.Fatalf("export is not JSON: %v", err)
	}
	doc := &Export{Head: map[string]any{}, Tables: map[string][]map[string]any{}}
	for key, v := range all {
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		var err error
		if slices.Contains(ExportTables, key) {
			var rows []map[string]any
			err = dec.Decode(&rows)
			doc.Tables[key] = rows
		} else {
			var head any
			err = dec.Decode(&head)
			doc.Head[key] = head
		}
		if err != nil {
			tb.Fatalf("export's %s: %v", key, err)
		}
	}
	return doc
}

// MustExport is the user's export document.
func MustExport(tb testing.TB, s *store.Store, userID string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := s.Export(context.Background(), userID, &buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// ID is the id of the record table[row].
func (e *Export) ID(tb testing.TB, table string, row int) string {
	tb.Helper()
	if row >= len(e.Tables[table]) {
		tb.Fatalf("the export has %d %s, not a record %d", len(e.Tables[table]), table, row)
	}
	return e.Tables[table][row]["id"].(string)
}

// IDWhere is the id of the first record of table whose field has the value.
func (e *Export) IDWhere(tb testing.TB, table, field, value string) string {
	tb.Helper()
	for _, row := range e.Tables[table] {
		if row[field] == value {
			return row["id"].(string)
		}
	}
	tb.Fatalf("the export has no %s with %s %s", table, field, value)
	return ""
}

// Bytes writes the document again, its parts in their order.
func (e *Export) Bytes(tb testing.TB) []byte {
	tb.Helper()
	var buf bytes.Buffer
	buf.WriteString("{")
	for _, key := range []string{"format", "version", "exported_at", "user"} {
		fmt.Fprintf(&buf, "%q: %s,\n", key, mustJSON(tb, e.Head[key]))
	}
	for i, t := range ExportTables {
		if i > 0 {
			buf.WriteString(",\n")
		}
		rows := e.Tables[t]
		if rows == nil {
			rows = []map[string]any{}
		}
		fmt.Fprintf(&buf, "%q: %s", t, mustJSON(tb, rows))
	}
	buf.WriteString("}\n")
	return buf.Bytes()
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// CraftExport turns doc, a user's export, into the document another
// account would craft: every record gets a new id, and every reference
// follows it, so that the copy is a journal of its own; then the record
// table[row] gets the fields of set. An id set as the record's own "id"
// is the record's id throughout the document (its references follow).
func CraftExport(tb testing.TB, doc []byte, table string, row int, set map[string]any) []byte {
	tb.Helper()
	e := ReadExport(tb, doc)
	target := e.Tables[table]
	if row >= len(target) {
		tb.Fatalf("the export has %d %s, not a record %d", len(target), table, row)
	}
	fresh := map[string]string{}
	if id, ok := set["id"].(string); ok {
		fresh[target[row]["id"].(string)] = id
	}
	renew := func(id string) string {
		if _, ok := fresh[id]; !ok {
			fresh[id] = uuid.Must(uuid.NewV7()).String()
		}
		return fresh[id]
	}
	for t, fields := range exportIDs {
		for _, rec := range e.Tables[t] {
			for _, f := range fields {
				s, ok := rec[f].(string)
				if !ok || s == "" {
					continue
				}
				ids := strings.Split(s, ",")
				for i := range ids {
					ids[i] = renew(ids[i])
				}
				rec[f] = strings.Join(ids, ",")
			}
		}
	}
	for f, v := range set {
		target[row][f] = v
	}
	return e.Bytes(tb)
}

// OwnerAttack is an export crafted from a victim's (see CraftExport)
// whose record Table[Row] refers, in Field, to one of the victim's records.
type OwnerAttack struct {
	Name, Table string
	Row         int
	Field       string
	Set         func(tb testing.TB, victim *Export) map[string]any // the fields the record gets
}

// Doc crafts the attack's document from the victim's export.
func (a OwnerAttack) Doc(tb testing.TB, victim []byte) []byte {
	tb.Helper()
	return CraftExport(tb, victim, a.Table, a.Row, a.Set(tb, ReadExport(tb, victim)))
}

// Refusal is what the refusal of the attack says, at least.
func (a OwnerAttack) Refusal() string {
	return fmt.Sprintf("%s[%d]: %s ", a.Table, a.Row, a.Field)
}

// OwnerAttacks aim every field of an export that refers to another record
// at a record of the victim's journal made by MustAnalysedJournal.
var OwnerAttacks = []OwnerAttack{
	{"TagCategory", "tags", 0, "category_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"category_id": v.IDWhere(tb, "categories", "kind", string(store.TagBadBehaviour))}
	}},
	{"SegmentCapture", "segments", 0, "capture_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"capture_id": v.ID(tb, "captures", 0), "position": 7}
	}},
	{"SegmentTagIDs", "segments", 0, "tag_ids", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"tag_ids": v.IDWhere(tb, "tags", "type", string(store.TagPerson))}
	}},
	{"SegmentTagSegment", "segment_tags", 0, "segment_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"segment_id": v.ID(tb, "segments", 0)}
	}},
	{"SegmentTagTag", "segment_tags", 0, "tag_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"tag_id": v.IDWhere(tb, "tags", "type", string(store.TagPerson))}
	}},
	{"PatternCategory", "patterns", 0, "category_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"category_id": v.IDWhere(tb, "categories", "kind", string(store.TagBadBehaviour))}
	}},
	{"CorrelationPattern", "correlations", 0, "pattern_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"pattern_id": v.ID(tb, "patterns", 0)}
	}},
	{"CorrelationTag", "correlations", 0, "tag_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"tag_id": v.IDWhere(tb, "tags", "type", string(store.TagTrigger))}
	}},
	{"FlowPattern", "flows", 0, "pattern_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"pattern_id": v.ID(tb, "patterns", 0)}
	}},
	{"FlowSegment", "flows", 0, "segment_id", func(tb testing.TB, v *Export) map[string]any {
		return map[string]any{"segment_id": v.ID(tb, "segments", 1)}
	}},
}
