package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Restore brings a document made by Export into the user's account, as one
// batch named name. open opens the document at its start; Restore reads it
// as a stream, a record at a time, and opens it a second time when its
// records' ids turn out to be taken here. An error reading it (not its
// content) is returned as it is.
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
func (s *Store) Restore(ctx context.Context, userID, name string, open func() (io.ReadCloser, error)) (*ImportResult, error) {
	var hasEntries bool
	if err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM captures WHERE user_id = ?)
		OR EXISTS (SELECT 1 FROM categories WHERE user_id = ?)`, userID, userID).Scan(&hasEntries); err != nil {
		return nil, err
	}
	if hasEntries {
		var entries []ImportEntry
		err := readExport(open, func(table string, i int, row *exportRow) error {
			if table != "captures" {
				return nil
			}
			text, _ := row.get("original").(string)
			at, _ := row.get("occurred_at").(string)
			when, err := ParseTime(at)
			if err != nil {
				return Invalid("file", "captures[%d]: occurred_at %q is not a time like 2026-11-22T08:21:03.120000Z.", i, at)
			}
			entries = append(entries, ImportEntry{OccurredAt: when, Text: text, Source: fmt.Sprintf("captures[%d]", i)})
			return nil
		})
		if err != nil {
			return nil, err
		}
		return s.ImportCaptures(ctx, userID, name, entries)
	}
	// A restore writes more pages than SQLite's cache holds (2 MiB): when
	// it is full they go to the log and are read back before the commit. A
	// larger cache for the restore saves that. A multi-row insert keeps a
	// journal of its own, in case it fails half-way; in memory it costs no
	// file writes. Both are set on the one writer connection and given back
	// afterwards.
	for _, p := range []string{fmt.Sprintf("cache_size = -%d", restoreCacheKiB), "temp_store = MEMORY"} {
		if _, err := s.write.ExecContext(ctx, "PRAGMA "+p); err != nil {
			return nil, err
		}
	}
	defer s.write.ExecContext(context.WithoutCancel(ctx), "PRAGMA cache_size = -2000")
	defer s.write.ExecContext(context.WithoutCancel(ctx), "PRAGMA temp_store = DEFAULT")
	var ids idMap // nil: records keep their ids
	for {
		res := &ImportResult{}
		err := s.update(ctx, func(tx *sql.Tx) error {
			r := &restorer{ctx: ctx, tx: tx, userID: userID, now: s.Now(), ids: ids,
				cols: map[string]map[string]string{}, stmts: map[string]*sql.Stmt{}}
			defer r.close()
			if err := readExport(open, r.add); err != nil {
				return err
			}
			var err error
			res.Imported, res.Batch, err = r.finish(name)
			return err
		})
		if errors.Is(err, errIDTaken) && ids == nil {
			// Written nothing: the export came from this instance, so
			// every record is written again under a new id.
			ids = idMap{}
			continue
		}
		return res, err
	}
}

// OpenBytes opens a document held in memory, for Restore.
func OpenBytes(data []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// errIDTaken stops a restore that keeps ids when one is already taken here.
var errIDTaken = errors.New("an id of the export is taken")

// restorer writes the records of an export inside one transaction, rows of
// a table in multi-row inserts of up to restoreBatch rows.
type restorer struct {
	ctx    context.Context
	tx     *sql.Tx
	userID string
	now    time.Time
	ids    idMap                        // nil keeps every id
	cols   map[string]map[string]string // by table: column names to declared types
	stmts  map[string]*sql.Stmt         // by query

	// The rows waiting to be written: same table, same columns.
	table  string
	names  []string
	args   []any
	wheres []where

	rowNames []string // the record being added, reused
	rowArgs  []any

	queued   []string // ids of captures to analyse again
	captures int
}

// restoreCacheKiB is SQLite's page cache during a restore.
const restoreCacheKiB = 16 << 10

// restoreBatch is the most rows one insert writes.
const restoreBatch = 64

// where names a record of the export in messages: "captures[12]".
type where struct {
	table string
	i     int
}

func (w where) String() string { return fmt.Sprintf("%s[%d]", w.table, w.i) }

// add checks one record and queues it for writing.
func (r *restorer) add(table string, i int, row *exportRow) error {
	t := exportTables[slices.IndexFunc(exportTables, func(t exportTable) bool { return t.name == table })]
	cols, ok := r.cols[table]
	if !ok {
		var err error
		if cols, err = tableColumns(r.ctx, r.tx, table); err != nil {
			return err
		}
		r.cols[table] = cols
	}
	w := where{table, i}
	if table == "settings" {
		key, _ := row.get("key").(string)
		value, _ := row.get("value").(string)
		st := Setting{Key: key, Value: value}
		if err := st.Validate(); err != nil {
			return Invalid("file", "%s: %s", w, ErrorMessage(err))
		}
	}
	names, args := r.rowNames[:0], r.rowArgs[:0]
	defer func() { r.rowNames, r.rowArgs = names, args }() // reused by the next record
	for k, col := range row.names {
		typ, ok := cols[col]
		if !ok || slices.Contains(t.omit, col) || slices.Contains(names, col) {
			return Invalid("file", "%s: unknown field %q.", w, col)
		}
		v, err := restoreValue(w, col, typ, row.values[k])
		if err != nil {
			return err
		}
		if err := restoreRule(w, table, col, v); err != nil {
			return err
		}
		if s, ok := v.(string); ok && slices.Contains(t.ids, col) {
			v = r.ids.mapList(s)
		}
		names = append(names, col)
		args = append(args, v)
	}
	if _, ok := cols["user_id"]; ok {
		names = append(names, "user_id")
		args = append(args, r.userID)
	}
	if table == "captures" {
		r.captures++
		if st := row.get("status"); st == StatusQueued || st == StatusProcessing {
			// Its run is to be done again here; finish places it in the queue.
			names, args = setColumn(names, args, "status", StatusQueued)
			names, args = setColumn(names, args, "background", 1)
			names, args = setColumn(names, args, "available_at", FormatTime(r.now))
			r.queued = append(r.queued, r.ids.mapList(fmt.Sprint(row.get("id"))))
		}
	}
	if table != r.table || !slices.Equal(names, r.names) || len(r.wheres) == restoreBatch {
		if err := r.flush(); err != nil {
			return err
		}
		r.table, r.names = table, slices.Clone(names)
	}
	r.args = append(r.args, args...)
	r.wheres = append(r.wheres, w)
	return nil
}

// flush writes the waiting rows in one insert. When it fails, they are
// written one at a time to name the record at fault.
func (r *restorer) flush() error {
	n := len(r.wheres)
	if n == 0 {
		return nil
	}
	defer func() { r.args, r.wheres = r.args[:0], r.wheres[:0] }()
	err := r.insert(n, r.args)
	if err == nil || n == 1 {
		return r.insertError(err, r.wheres[0])
	}
	if r.ids == nil && takenID(err) {
		return errIDTaken
	}
	cols := len(r.names)
	for k, w := range r.wheres {
		if err := r.insert(1, r.args[k*cols:(k+1)*cols]); err != nil {
			return r.insertError(err, w)
		}
	}
	return r.insertError(err, r.wheres[0]) // not a row's fault
}

// insert writes n rows of r.names.
func (r *restorer) insert(n int, args []any) error {
	verb := "INSERT"
	if r.table == "settings" {
		verb = "INSERT OR REPLACE" // a setting made before the restore gives way
	}
	row := "(?" + strings.Repeat(", ?", len(r.names)-1) + ")"
	query := verb + " INTO " + r.table + " (" + strings.Join(r.names, ", ") + ") VALUES " + row + strings.Repeat(", "+row, n-1)
	stmt, ok := r.stmts[query]
	if !ok {
		var err error
		if stmt, err = r.tx.PrepareContext(r.ctx, query); err != nil {
			return err
		}
		r.stmts[query] = stmt
	}
	_, err := stmt.ExecContext(r.ctx, args...)
	return err
}

// insertError is the error of writing the record at w: errIDTaken when
// its id exists here and ids are kept, else EINVALID naming it.
func (r *restorer) insertError(err error, w where) error {
	switch {
	case err == nil:
		return nil
	case r.ids == nil && takenID(err):
		return errIDTaken
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	return Invalid("file", "%s: %s.", w, strings.TrimPrefix(err.Error(), "constraint failed: "))
}

// takenID reports whether err is an insert that failed on an id column
// already taken.
func takenID(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY && strings.Contains(se.Error(), ".id")
}

// finish writes what waits, places the captures to analyse in the queue
// and makes the batch that follows them.
func (r *restorer) finish(name string) (int, *JobBatch, error) {
	if err := r.flush(); err != nil {
		return 0, nil, err
	}
	if len(r.queued) > 0 {
		place, err := r.tx.PrepareContext(r.ctx, `UPDATE captures SET available_at = ? WHERE id = ?`)
		if err != nil {
			return 0, nil, err
		}
		defer place.Close()
		for i, id := range r.queued {
			if _, err := place.ExecContext(r.ctx, queuePlace(r.now, i, len(r.queued)), id); err != nil {
				return 0, nil, err
			}
		}
	}
	stamp := FormatTime(r.now)
	bid, err := createBatch(r.ctx, r.tx, r.userID, BatchImport, name, r.queued, stamp)
	if err != nil {
		return 0, nil, err
	}
	b, err := findBatch(r.ctx, r.tx, r.userID, bid)
	return r.captures, b, err
}

// close closes the prepared statements.
func (r *restorer) close() {
	for _, stmt := range r.stmts {
		stmt.Close()
	}
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
func restoreValue(w where, col, typ string, v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if typ != "TEXT" {
			return nil, Invalid("file", "%s: %s must be a number.", w, col)
		}
		if strings.HasSuffix(col, "_at") {
			if _, err := ParseTime(v); err != nil {
				return nil, Invalid("file", "%s: %s %q is not a time like 2026-11-22T08:21:03.120000Z.", w, col, v)
			}
		}
		return v, nil
	case json.Number:
		if typ != "INTEGER" {
			return nil, Invalid("file", "%s: %s must be text.", w, col)
		}
		n, err := v.Int64()
		if err != nil {
			return nil, Invalid("file", "%s: %s must be a whole number.", w, col)
		}
		return n, nil
	default:
		return nil, Invalid("file", "%s: %s must be text, a number or null.", w, col)
	}
}

// restoreRule checks what the schema cannot: values that readers parse.
func restoreRule(w where, table, col string, v any) error {
	switch {
	case table == "captures" && col == "status":
		if !slices.Contains([]any{StatusQueued, StatusProcessing, StatusProcessed, StatusFailed}, v) {
			return Invalid("file", "%s: status must be queued, processing, processed or failed.", w)
		}
	case table == "patterns" && col == "feelings":
		var names []string
		if s, ok := v.(string); !ok || json.Unmarshal([]byte(s), &names) != nil {
			return Invalid("file", "%s: feelings must be a JSON list of feeling names, as text.", w)
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

// idMap gives the records of a restore new ids, the same for every mention
// of an old one.
type idMap map[string]string // nil keeps every id

// mapList maps one id, or a comma-separated list of them.
func (m idMap) mapList(s string) string {
	if m == nil || s == "" {
		return s
	}
	if !strings.Contains(s, ",") {
		return m.mapOne(s)
	}
	parts := strings.Split(s, ",")
	for i, id := range parts {
		parts[i] = m.mapOne(id)
	}
	return strings.Join(parts, ",")
}

func (m idMap) mapOne(id string) string {
	n, ok := m[id]
	if !ok {
		n = newID()
		m[id] = n
	}
	return n
}
