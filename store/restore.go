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
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/recur-journal/recur/store/exportread"
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
// this same instance, or it names another user's record as its own), in
// which case all get new ones. Every id a record refers to must be that of a
// record of the document itself, so nothing restored joins or names
// another user's records. Captures that were waiting for analysis are
// queued again, in the batch.
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
		err := readExport(open, func(table string, i int, row *exportread.Row) error {
			if table != "captures" {
				return nil
			}
			text, _ := row.Get("original").(string)
			at, _ := row.Get("occurred_at").(string)
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
	keepIDs := true
	for {
		res := &ImportResult{}
		err := s.update(ctx, func(tx *sql.Tx) error {
			w := &restoreWriter{ctx: ctx, tx: tx, keepIDs: keepIDs, stmts: map[string]*sql.Stmt{}}
			defer w.close()
			r := newRestorer(userID, s.Now(), keepIDs)
			for _, t := range exportTables {
				cols, err := tableColumns(ctx, tx, t.name)
				if err != nil {
					return err
				}
				r.cols[t.name] = cols
			}
			if err := w.run(open, r); err != nil {
				return err
			}
			var err error
			res.Imported, res.Batch, err = r.finish(w, name)
			return err
		})
		if errors.Is(err, errIDTaken) && keepIDs {
			// Written nothing: an id of the export is taken here, so
			// every record is written again under a new id.
			keepIDs = false
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

// restorer reads the records of an export: it checks each one, maps its
// ids and gathers the rows of a table into batches of up to restoreBatch
// rows with the same columns, which it hands to a restoreWriter.
type restorer struct {
	userID  string
	now     time.Time
	keepIDs bool                         // records keep their ids, else get new ones
	ids     map[string]map[string]string // by table referred to: the ids of its records so far, to the ids written
	cols    map[string]map[string]string // by table: column names to declared types
	send    func(*rowBatch) error        // hands a full batch over
	free    chan *rowBatch               // batches written, to be filled again

	batch *rowBatch // the rows waiting to be handed over

	rowNames []string // the record being added, reused
	rowArgs  []any

	queued   []string // ids of captures to analyse again
	captures int
}

// newRestorer is a restorer of the user's records, which keep their ids
// or get new ones.
func newRestorer(userID string, now time.Time, keepIDs bool) *restorer {
	r := &restorer{userID: userID, now: now, keepIDs: keepIDs, ids: map[string]map[string]string{}, cols: map[string]map[string]string{}}
	for _, t := range exportTables {
		for _, ref := range t.ids {
			if ref.table != t.name {
				r.ids[ref.table] = map[string]string{}
			}
		}
	}
	return r
}

// rowBatch is rows of one table with the same columns, written in one
// insert.
type rowBatch struct {
	table  string
	names  []string // shared by the batches that follow with the same columns
	args   []any
	wheres []where
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
func (r *restorer) add(table string, i int, row *exportread.Row) error {
	t := exportTables[slices.IndexFunc(exportTables, func(t exportTable) bool { return t.name == table })]
	cols := r.cols[table]
	w := where{table, i}
	if table == "settings" {
		key, _ := row.Get("key").(string)
		value, _ := row.Get("value").(string)
		st := Setting{Key: key, Value: value}
		if err := st.Validate(); err != nil {
			return Invalid("file", "%s: %s", w, ErrorMessage(err))
		}
	}
	names, args := r.rowNames[:0], r.rowArgs[:0]
	defer func() { r.rowNames, r.rowArgs = names, args }() // reused by the next record
	// Where in args the record's own id is.
	id := -1
	for k, col := range row.Names {
		typ, ok := cols[col]
		if !ok || slices.Contains(t.omit, col) || slices.Contains(names, col) {
			return Invalid("file", "%s: unknown field %q.", w, col)
		}
		v, err := restoreValue(w, col, typ, row.Values[k])
		if err != nil {
			return err
		}
		if err := restoreRule(w, table, col, v); err != nil {
			return err
		}
		if s, ok := v.(string); ok {
			if k := slices.IndexFunc(t.ids, func(ref exportRef) bool { return ref.col == col }); k >= 0 {
				if v, err = r.resolve(w, t.ids[k], s); err != nil {
					return err
				}
				if col == "id" {
					id = len(args)
				}
			}
		}
		names = append(names, col)
		args = append(args, v)
	}
	if id < 0 && len(t.ids) > 0 && t.ids[0].table == table {
		return Invalid("file", "%s: id is missing.", w)
	}
	if _, ok := cols["user_id"]; ok {
		names = append(names, "user_id")
		args = append(args, r.userID)
	}
	if table == "captures" {
		r.captures++
		original, _ := row.Get("original").(string)
		language, _ := row.Get("language").(string)
		names, args = setColumn(names, args, "stems", wordStems(original, language))
		if st, _ := row.Get("status").(string); CaptureStatus(st) == StatusQueued || CaptureStatus(st) == StatusProcessing {
			// Its run is to be done again here; finish places it in the queue.
			names, args = setColumn(names, args, "status", string(StatusQueued))
			names, args = setColumn(names, args, "background", 1)
			names, args = setColumn(names, args, "available_at", FormatTime(r.now))
			r.queued = append(r.queued, args[id].(string))
		}
	}
	b := r.batch
	same := b != nil && table == b.table && slices.Equal(names, b.names)
	if !same || len(b.wheres) == restoreBatch {
		if err := r.flush(); err != nil {
			return err
		}
		next := r.emptyBatch()
		next.table, next.names = table, slices.Clone(names)
		if same {
			next.names = b.names // not changed once made, so shared
		}
		r.batch, b = next, next
	}
	b.args = append(b.args, args...)
	b.wheres = append(b.wheres, w)
	return nil
}

// emptyBatch gives a batch already written back, or a new one.
func (r *restorer) emptyBatch() *rowBatch {
	select {
	case b := <-r.free:
		clear(b.args)
		b.args, b.wheres = b.args[:0], b.wheres[:0]
		return b
	default:
		return &rowBatch{}
	}
}

// flush hands over the rows waiting.
func (r *restorer) flush() error {
	b := r.batch
	r.batch = nil
	if b == nil || len(b.wheres) == 0 {
		return nil
	}
	return r.send(b)
}

// restoreAhead is how many batches reading may get ahead of writing.
const restoreAhead = 8

// errRestoreStopped ends the reading of a restore whose writing failed.
var errRestoreStopped = errors.New("the restore stopped")

// restoreWriter writes the batches of a restore inside one transaction.
type restoreWriter struct {
	ctx     context.Context
	tx      *sql.Tx
	keepIDs bool                 // records keep their ids: one taken here is errIDTaken
	stmts   map[string]*sql.Stmt // by query
}

// run reads the document with r in a goroutine of its own while it writes
// the batches r hands over, so that reading a large export and writing it,
// which take about as long, overlap. Errors come as they would one after
// the other: a batch that fails to be written wins over a record further
// on that fails its check, and a record that fails its check stops the
// restore before the rows gathered with it are written.
func (w *restoreWriter) run(open func() (io.ReadCloser, error), r *restorer) error {
	batches := make(chan *rowBatch, restoreAhead)
	r.free = make(chan *rowBatch, restoreAhead+2)
	stop := make(chan struct{})
	var once sync.Once
	halt := func() { once.Do(func() { close(stop) }) }
	defer halt() // the reader never waits on a writer gone
	r.send = func(b *rowBatch) error {
		select {
		case batches <- b:
			return nil
		case <-stop:
			return errRestoreStopped
		}
	}
	read := make(chan error, 1)
	go func() {
		defer close(batches)
		defer func() {
			if p := recover(); p != nil {
				read <- fmt.Errorf("reading the export: %v", p)
			}
		}()
		err := readExport(open, r.add)
		if err == nil {
			err = r.flush()
		}
		read <- err
	}()
	var failed error
	for b := range batches {
		if failed != nil {
			continue // the reader stops at its next batch
		}
		if failed = w.write(b); failed != nil {
			halt()
			continue
		}
		select {
		case r.free <- b:
		default:
		}
	}
	if rerr := <-read; failed == nil {
		return rerr
	}
	return failed
}

// write writes a batch in one insert. When it fails, its rows are written
// one at a time to name the record at fault.
func (w *restoreWriter) write(b *rowBatch) error {
	n := len(b.wheres)
	err := w.insert(b, n, b.args)
	if err == nil || n == 1 {
		return w.insertError(err, b.wheres[0])
	}
	if w.keepIDs && takenID(err) {
		return errIDTaken
	}
	cols := len(b.names)
	for k, at := range b.wheres {
		if err := w.insert(b, 1, b.args[k*cols:(k+1)*cols]); err != nil {
			return w.insertError(err, at)
		}
	}
	return w.insertError(err, b.wheres[0]) // not a row's fault
}

// insert writes n rows of b's table and columns.
func (w *restoreWriter) insert(b *rowBatch, n int, args []any) error {
	verb := "INSERT"
	if b.table == "settings" {
		verb = "INSERT OR REPLACE" // a setting made before the restore gives way
	}
	row := "(?" + strings.Repeat(", ?", len(b.names)-1) + ")"
	query := verb + " INTO " + b.table + " (" + strings.Join(b.names, ", ") + ") VALUES " + row + strings.Repeat(", "+row, n-1)
	stmt, ok := w.stmts[query]
	if !ok {
		var err error
		if stmt, err = w.tx.PrepareContext(w.ctx, query); err != nil {
			return err
		}
		w.stmts[query] = stmt
	}
	_, err := stmt.ExecContext(w.ctx, args...)
	return err
}

// insertError is the error of writing the record at at: errIDTaken when
// its id exists here and ids are kept, else EINVALID naming it.
func (w *restoreWriter) insertError(err error, at where) error {
	switch {
	case err == nil:
		return nil
	case w.keepIDs && takenID(err):
		return errIDTaken
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	return Invalid("file", "%s: %s.", at, strings.TrimPrefix(err.Error(), "constraint failed: "))
}

// close closes the prepared statements.
func (w *restoreWriter) close() {
	for _, stmt := range w.stmts {
		stmt.Close()
	}
}

// takenID reports whether err is an insert that failed on an id column
// already taken.
func takenID(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY && strings.Contains(se.Error(), ".id")
}

// finish places the captures to analyse in the queue and makes the batch
// that follows them, once every record is written.
func (r *restorer) finish(w *restoreWriter, name string) (int, *JobBatch, error) {
	if len(r.queued) > 0 {
		place, err := w.tx.PrepareContext(w.ctx, `UPDATE captures SET available_at = ? WHERE id = ?`)
		if err != nil {
			return 0, nil, err
		}
		defer place.Close()
		for i, id := range r.queued {
			if _, err := place.ExecContext(w.ctx, queuePlace(r.now, i, len(r.queued)), id); err != nil {
				return 0, nil, err
			}
		}
	}
	// A feeling's tag has the type of its feeling's valence: an export
	// made before feelings had a mixed class files bittersweet and
	// nostalgic as unpleasant and pleasant.
	if _, err := w.tx.ExecContext(w.ctx, `UPDATE tags SET type = 'mixed_feeling'
		WHERE user_id = ? AND type != 'mixed_feeling' AND feeling_id IN (SELECT id FROM feelings WHERE valence = 0)`, r.userID); err != nil {
		return 0, nil, err
	}
	stamp := FormatTime(r.now)
	bid, err := createBatch(w.ctx, w.tx, r.userID, BatchImport, name, r.queued, stamp)
	if err != nil {
		return 0, nil, err
	}
	b, err := findBatch(w.ctx, w.tx, r.userID, bid)
	return r.captures, b, err
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
		if s, ok := v.(string); !ok || !slices.Contains(CaptureStatuses, CaptureStatus(s)) {
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
