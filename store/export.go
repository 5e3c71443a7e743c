package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// The export document: a JSON object whose "format" is ExportFormat and
// "version" ExportVersion, with "exported_at", "user" (email, name,
// created_at) and one array per table below, each row an object keyed by
// the table's columns. A reader ignores nothing: an unknown key is refused.
const (
	ExportFormat  = "recur-export"
	ExportVersion = 1
)

// exportTable is one table of the export.
type exportTable struct {
	name  string
	query string   // the user's rows in a stable order; one ? for the user id
	omit  []string // columns left out: the owner, and what is derived again when needed
	ids   []string // columns holding ids of exported records; tag_ids holds a comma-separated list
}

// exportTables lists what an export holds, parents before children, which
// is also the order a restore writes them in.
var exportTables = []exportTable{
	{"settings", `SELECT * FROM settings WHERE user_id = ? ORDER BY key`, []string{"user_id"}, nil},
	// A category's embedding is computed again when it is next needed.
	{"categories", `SELECT * FROM categories WHERE user_id = ? ORDER BY created_at, id`, []string{"user_id", "embedding"}, []string{"id"}},
	{"tags", `SELECT * FROM tags WHERE user_id = ? ORDER BY created_at, id`, []string{"user_id"}, []string{"id", "category_id"}},
	{"captures", `SELECT * FROM captures WHERE user_id = ? ORDER BY occurred_at, id`, []string{"user_id"}, []string{"id"}},
	{"segments", `SELECT s.* FROM segments s JOIN captures c ON c.id = s.capture_id WHERE c.user_id = ?
		ORDER BY c.occurred_at, c.id, s.position`, nil, []string{"id", "capture_id", "tag_ids"}},
	{"segment_tags", `SELECT st.* FROM segment_tags st JOIN segments s ON s.id = st.segment_id JOIN captures c ON c.id = s.capture_id
		WHERE c.user_id = ? ORDER BY c.occurred_at, c.id, s.position, st.position, st.tag_id`, nil, []string{"segment_id", "tag_id"}},
	{"patterns", `SELECT * FROM patterns WHERE user_id = ? ORDER BY created_at, id`, []string{"user_id"}, []string{"id", "category_id"}},
	{"correlations", `SELECT r.* FROM correlations r JOIN patterns p ON p.id = r.pattern_id WHERE p.user_id = ?
		ORDER BY p.created_at, p.id, r.created_at, r.id`, nil, []string{"id", "pattern_id", "tag_id"}},
	{"flows", `SELECT f.* FROM flows f JOIN patterns p ON p.id = f.pattern_id WHERE p.user_id = ?
		ORDER BY p.created_at, p.id, f.id`, nil, []string{"id", "pattern_id", "segment_id"}},
}

// Export writes everything stored for the user's journal to w as one JSON
// document, read from one snapshot: settings, categories, tags, captures,
// segments, their tags, patterns, correlations and flows. Credentials
// (password, two-factor secret, tokens, apps) are never part of it.
func (s *Store) Export(ctx context.Context, userID string, w io.Writer) error {
	return s.view(ctx, func(tx *sql.Tx) error {
		var email, name, created string
		err := tx.QueryRowContext(ctx, `SELECT email, name, created_at FROM users WHERE id = ?`, userID).Scan(&email, &name, &created)
		if err == sql.ErrNoRows {
			return NotFound("User")
		} else if err != nil {
			return err
		}
		head, err := json.Marshal(map[string]any{"email": email, "name": name, "created_at": created})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "{\n\"format\": %q,\n\"version\": %d,\n\"exported_at\": %q,\n\"user\": %s", ExportFormat, ExportVersion, FormatTime(s.Now()), head)
		for _, t := range exportTables {
			fmt.Fprintf(w, ",\n%q: [", t.name)
			if err := exportRows(ctx, tx, t, userID, w); err != nil {
				return fmt.Errorf("export %s: %w", t.name, err)
			}
			io.WriteString(w, "]")
		}
		_, err = io.WriteString(w, "\n}\n")
		return err
	})
}

// exportRows writes the user's rows of t, one JSON object per line.
func exportRows(ctx context.Context, tx *sql.Tx, t exportTable, userID string, w io.Writer) error {
	rows, err := tx.QueryContext(ctx, t.query, userID)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	values := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range values {
		ptrs[i] = &values[i]
	}
	for n := 0; rows.Next(); n++ {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make(map[string]any, len(cols))
		for i, c := range cols {
			if slices.Contains(t.omit, c) {
				continue
			}
			if b, ok := values[i].([]byte); ok {
				values[i] = string(b)
			}
			row[c] = values[i]
		}
		line, err := json.Marshal(row)
		if err != nil {
			return err
		}
		if n > 0 {
			io.WriteString(w, ",")
		}
		io.WriteString(w, "\n  ")
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Restore brings a document made by Export into the user's account, as one
// batch named name.
//
// Into an account without entries it restores everything as it was:
// analysis, patterns and the user's decisions on them, settings. Records keep
// their ids unless one of them already exists here (the export came from
// this same instance), in which case all get new ones. Captures that were
// waiting for analysis are queued again, in the batch.
//
// Into an account that has entries it imports the captures' texts only, as
// any import does: those already there are left out, the rest are analysed
// afresh.
//
// A document that is not a Recur export, or breaks a rule, gives EINVALID
// under "file" saying where, and nothing is written.
func (s *Store) Restore(ctx context.Context, userID, name string, data []byte) (*ImportResult, error) {
	doc, err := decodeExport(data)
	if err != nil {
		return nil, err
	}
	var hasEntries bool
	if err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM captures WHERE user_id = ?)
		OR EXISTS (SELECT 1 FROM categories WHERE user_id = ?)`, userID, userID).Scan(&hasEntries); err != nil {
		return nil, err
	}
	if hasEntries {
		entries := make([]ImportEntry, 0, len(doc["captures"]))
		for i, row := range doc["captures"] {
			text, _ := row["original"].(string)
			at, _ := row["occurred_at"].(string)
			when, err := ParseTime(at)
			if err != nil {
				return nil, Invalid("file", "captures[%d]: occurred_at %q is not a time like 2026-11-22T08:21:03.120000Z.", i, at)
			}
			entries = append(entries, ImportEntry{OccurredAt: when, Text: text, Source: fmt.Sprintf("captures[%d]", i)})
		}
		return s.ImportCaptures(ctx, userID, name, entries)
	}
	res := &ImportResult{}
	err = s.update(ctx, func(tx *sql.Tx) error {
		var err error
		res.Imported, res.Batch, err = restore(ctx, tx, userID, name, doc, s.Now())
		return err
	})
	return res, err
}

// exportDoc is a decoded export: its tables' rows.
type exportDoc map[string][]map[string]any

// decodeExport checks the head of an export and decodes its tables.
func decodeExport(data []byte) (exportDoc, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, Invalid("file", "The export is not valid JSON: %v.", err)
	}
	var format string
	var version int
	json.Unmarshal(top["format"], &format)
	json.Unmarshal(top["version"], &version)
	if format != ExportFormat {
		return nil, Invalid("file", "This is not a Recur export: its format is %q, not %q.", format, ExportFormat)
	}
	if version != ExportVersion {
		return nil, Invalid("file", "This export has format version %d; this Recur reads version %d. Import it with the Recur version that matches.", version, ExportVersion)
	}
	doc := exportDoc{}
	for key, raw := range top {
		switch key {
		case "format", "version", "exported_at", "user":
			continue
		}
		if !slices.ContainsFunc(exportTables, func(t exportTable) bool { return t.name == key }) {
			return nil, Invalid("file", "The export has an unknown part %q.", key)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var rows []map[string]any
		if err := dec.Decode(&rows); err != nil {
			return nil, Invalid("file", "The export's %s is not a list of records: %v.", key, err)
		}
		doc[key] = rows
	}
	return doc, nil
}

// restore writes doc's records for the user inside tx and returns how many
// captures it holds and the batch of those queued again.
func restore(ctx context.Context, tx *sql.Tx, userID, name string, doc exportDoc, now time.Time) (int, *JobBatch, error) {
	stamp := FormatTime(now)
	ids, err := newIDMap(ctx, tx, doc)
	if err != nil {
		return 0, nil, err
	}
	var queued []string
	stmts := map[string]*sql.Stmt{} // rows of a table share their columns, mostly
	for _, t := range exportTables {
		cols, err := tableColumns(ctx, tx, t.name)
		if err != nil {
			return 0, nil, err
		}
		for i, row := range doc[t.name] {
			where := fmt.Sprintf("%s[%d]", t.name, i)
			if t.name == "settings" {
				key, _ := row["key"].(string)
				value, _ := row["value"].(string)
				st := Setting{Key: key, Value: value}
				if err := st.Validate(); err != nil {
					return 0, nil, Invalid("file", "%s: %s", where, ErrorMessage(err))
				}
			}
			names := make([]string, 0, len(row)+1)
			args := make([]any, 0, len(row)+1)
			for _, col := range slices.Sorted(maps.Keys(row)) {
				v := row[col]
				typ, ok := cols[col]
				if !ok || slices.Contains(t.omit, col) {
					return 0, nil, Invalid("file", "%s: unknown field %q.", where, col)
				}
				v, err := restoreValue(where, col, typ, v)
				if err != nil {
					return 0, nil, err
				}
				if err := restoreRule(where, t.name, col, v); err != nil {
					return 0, nil, err
				}
				if s, ok := v.(string); ok && slices.Contains(t.ids, col) {
					v = ids.mapList(s)
				}
				names = append(names, col)
				args = append(args, v)
			}
			if _, ok := cols["user_id"]; ok {
				names = append(names, "user_id")
				args = append(args, userID)
			}
			if t.name == "captures" {
				if st := row["status"]; st == StatusQueued || st == StatusProcessing {
					// Its run is to be done again here.
					names, args = setColumn(names, args, "status", StatusQueued)
					names, args = setColumn(names, args, "background", 1)
					names, args = setColumn(names, args, "available_at", queuePlace(now, len(queued), len(doc["captures"])))
					queued = append(queued, ids.mapList(fmt.Sprint(row["id"])))
				}
			}
			verb := "INSERT"
			if t.name == "settings" {
				verb = "INSERT OR REPLACE" // a setting made before the restore gives way
			}
			query := verb + " INTO " + t.name + " (" + strings.Join(names, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(names)-1) + ")"
			stmt, ok := stmts[query]
			if !ok {
				if stmt, err = tx.PrepareContext(ctx, query); err != nil {
					return 0, nil, err
				}
				defer stmt.Close()
				stmts[query] = stmt
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return 0, nil, Invalid("file", "%s: %s.", where, strings.TrimPrefix(err.Error(), "constraint failed: "))
			}
		}
	}
	bid, err := createBatch(ctx, tx, userID, BatchImport, name, queued, stamp)
	if err != nil {
		return 0, nil, err
	}
	b, err := findBatch(ctx, tx, userID, bid)
	return len(doc["captures"]), b, err
}

// setColumn sets a column's value in an insert, adding the column if needed.
func setColumn(names []string, args []any, col string, v any) ([]string, []any) {
	if i := slices.Index(names, col); i >= 0 {
		args[i] = v
		return names, args
	}
	return append(names, col), append(args, v)
}

// restoreValue checks a value against its column's declared type, and that
// a time is stored the way every reader expects.
func restoreValue(where, col, typ string, v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if typ != "TEXT" {
			return nil, Invalid("file", "%s: %s must be a number.", where, col)
		}
		if strings.HasSuffix(col, "_at") {
			if _, err := ParseTime(v); err != nil {
				return nil, Invalid("file", "%s: %s %q is not a time like 2026-11-22T08:21:03.120000Z.", where, col, v)
			}
		}
		return v, nil
	case json.Number:
		if typ != "INTEGER" {
			return nil, Invalid("file", "%s: %s must be text.", where, col)
		}
		n, err := v.Int64()
		if err != nil {
			return nil, Invalid("file", "%s: %s must be a whole number.", where, col)
		}
		return n, nil
	default:
		return nil, Invalid("file", "%s: %s must be text, a number or null.", where, col)
	}
}

// restoreRule checks what the schema cannot: values that readers parse.
func restoreRule(where, table, col string, v any) error {
	switch {
	case table == "captures" && col == "status":
		if !slices.Contains([]any{StatusQueued, StatusProcessing, StatusProcessed, StatusFailed}, v) {
			return Invalid("file", "%s: status must be queued, processing, processed or failed.", where)
		}
	case table == "patterns" && col == "feelings":
		var names []string
		if s, ok := v.(string); !ok || json.Unmarshal([]byte(s), &names) != nil {
			return Invalid("file", "%s: feelings must be a JSON list of feeling names, as text.", where)
		}
	}
	return nil
}

// tableColumns maps a table's columns to their declared types.
func tableColumns(ctx context.Context, tx *sql.Tx, table string) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, type FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		cols[name] = strings.ToUpper(typ)
	}
	return cols, rows.Err()
}

// idMap gives the records of a restore their ids here: their own, or fresh
// ones when any of them is already taken.
type idMap map[string]string // nil keeps every id

func newIDMap(ctx context.Context, tx *sql.Tx, doc exportDoc) (idMap, error) {
	for _, t := range exportTables {
		if !slices.Contains(t.ids, "id") {
			continue
		}
		for _, row := range doc[t.name] {
			id, _ := row["id"].(string)
			var taken bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+t.name+` WHERE id = ?)`, id).Scan(&taken); err != nil {
				return nil, err
			}
			if taken {
				return idMap{}, nil
			}
		}
	}
	return nil, nil
}

// mapList maps one id, or a comma-separated list of them.
func (m idMap) mapList(s string) string {
	if m == nil || s == "" {
		return s
	}
	parts := strings.Split(s, ",")
	for i, id := range parts {
		n, ok := m[id]
		if !ok {
			n = newID()
			m[id] = n
		}
		parts[i] = n
	}
	return strings.Join(parts, ",")
}
