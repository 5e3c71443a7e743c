package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/recur-journal/recur/store/exportread"
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
	query string      // the user's rows in a stable order; one ? for the user id
	omit  []string    // columns left out: the owner, and what is derived again when needed
	ids   []exportRef // columns holding ids of exported records
}

// exportRef is a column holding the id of a record of the export: the
// record's own (table is the record's table; it comes first) or that of a
// record of table, which comes earlier in the document. A list holds
// several, comma-separated.
type exportRef struct {
	col, table string
	list       bool
}

// exportTables lists what an export holds, parents before children, which
// is also the order a restore writes them in.
var exportTables = []exportTable{
	{"settings", `SELECT * FROM settings WHERE user_id = ? ORDER BY key`, []string{"user_id"}, nil},
	// A category's embedding is computed again when it is next needed.
	{"categories", `SELECT * FROM categories WHERE user_id = ? ORDER BY created_at, id`, []string{"user_id", "embedding"},
		[]exportRef{{"id", "categories", false}}},
	{"tags", `SELECT * FROM tags WHERE user_id = ? ORDER BY created_at, id`, []string{"user_id"},
		[]exportRef{{"id", "tags", false}, {"category_id", "categories", false}}},
	// A capture's stems are cut again from its text.
	{"captures", `SELECT * FROM captures WHERE user_id = ? ORDER BY occurred_at, id`, []string{"user_id", "stems"},
		[]exportRef{{"id", "captures", false}}},
	{"segments", `SELECT s.* FROM segments s JOIN captures c ON c.id = s.capture_id WHERE c.user_id = ?
		ORDER BY c.occurred_at, c.id, s.position`, nil,
		[]exportRef{{"id", "segments", false}, {"capture_id", "captures", false}, {"tag_ids", "tags", true}}},
	{"segment_tags", `SELECT st.* FROM segment_tags st JOIN segments s ON s.id = st.segment_id JOIN captures c ON c.id = s.capture_id
		WHERE c.user_id = ? ORDER BY c.occurred_at, c.id, s.position, st.position, st.tag_id`, nil,
		[]exportRef{{"segment_id", "segments", false}, {"tag_id", "tags", false}}},
	{"patterns", `SELECT * FROM patterns WHERE user_id = ? ORDER BY created_at, id`, []string{"user_id"},
		[]exportRef{{"id", "patterns", false}, {"category_id", "categories", false}}},
	{"correlations", `SELECT r.* FROM correlations r JOIN patterns p ON p.id = r.pattern_id WHERE p.user_id = ?
		ORDER BY p.created_at, p.id, r.created_at, r.id`, nil,
		[]exportRef{{"id", "correlations", false}, {"pattern_id", "patterns", false}, {"tag_id", "tags", false}}},
	{"flows", `SELECT f.* FROM flows f JOIN patterns p ON p.id = f.pattern_id WHERE p.user_id = ?
		ORDER BY p.created_at, p.id, f.id`, nil,
		[]exportRef{{"id", "flows", false}, {"pattern_id", "patterns", false}, {"segment_id", "segments", false}}},
}

// exportLayout is what a document read back must hold: exportTables in
// their order after the head.
var exportLayout = exportread.Layout{Format: ExportFormat, Version: ExportVersion,
	Skip: []string{"exported_at", "user"}, Tables: exportTableNames()}

func exportTableNames() []string {
	names := make([]string, len(exportTables))
	for i, t := range exportTables {
		names[i] = t.name
	}
	return names
}

// readExport reads an export document from open as a stream and calls
// visit with every record of its tables, in order (see exportread.Read).
// Content that breaks JSON or exportLayout gives EINVALID under "file";
// visit's errors and errors reading the document are returned as they are.
func readExport(open func() (io.ReadCloser, error), visit func(table string, i int, row *exportread.Row) error) error {
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	err = exportread.Read(rc, exportLayout, visit)
	var bad *exportread.Error
	if errors.As(err, &bad) {
		return Invalid("file", "%s", bad.Message)
	}
	return err
}

// Export writes everything stored for the user's journal to w as one JSON
// document, read from one snapshot: settings, categories, tags, captures,
// segments, their tags, patterns, correlations and flows. Credentials
// (password, two-factor secret, tokens, apps) are never part of it. The
// document is written as a stream, a record at a time as the rows are read,
// so an export of any size holds little memory.
func (s *Store) Export(ctx context.Context, userID string, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	err := s.view(ctx, func(tx *sql.Tx) error {
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
		fmt.Fprintf(bw, "{\n\"format\": %q,\n\"version\": %d,\n\"exported_at\": %q,\n\"user\": %s", ExportFormat, ExportVersion, FormatTime(s.Now()), head)
		for _, t := range exportTables {
			fmt.Fprintf(bw, ",\n%q: [", t.name)
			if err := exportRows(ctx, tx, t, userID, bw); err != nil {
				return fmt.Errorf("export %s: %w", t.name, err)
			}
			bw.WriteString("]")
		}
		_, err = bw.WriteString("\n}\n")
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// exportRows writes the user's rows of t as they are read, one JSON object
// per line, its keys in the order of their names (as encoding/json writes
// a map) and each value as encoding/json writes it.
func exportRows(ctx context.Context, tx *sql.Tx, t exportTable, userID string, w *bufio.Writer) error {
	rows, err := tx.QueryContext(ctx, t.query, userID)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var keep []int // the columns written, by name
	for i, c := range cols {
		if !slices.Contains(t.omit, c) {
			keep = append(keep, i)
		}
	}
	slices.SortFunc(keep, func(a, b int) int { return strings.Compare(cols[a], cols[b]) })
	keys := make([][]byte, len(keep)) // `{"name":` for the first, `,"name":` for the rest
	for j, i := range keep {
		key, err := json.Marshal(cols[i])
		if err != nil {
			return err
		}
		sep := byte(',')
		if j == 0 {
			sep = '{'
		}
		keys[j] = append(append([]byte{sep}, key...), ':')
	}
	values := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range values {
		ptrs[i] = &values[i]
	}
	var line bytes.Buffer // one record, reused
	enc := json.NewEncoder(&line)
	for n := 0; rows.Next(); n++ {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		line.Reset()
		if n > 0 {
			line.WriteByte(',')
		}
		line.WriteString("\n  ")
		if len(keep) == 0 {
			line.WriteByte('{')
		}
		for j, i := range keep {
			line.Write(keys[j])
			if b, ok := values[i].([]byte); ok {
				values[i] = string(b)
			}
			switch v := values[i].(type) {
			case nil:
				line.WriteString("null")
			case int64:
				line.Write(strconv.AppendInt(line.AvailableBuffer(), v, 10))
			default:
				// Encode ends the value with a newline, which the record has not.
				if err := enc.Encode(values[i]); err != nil {
					return err
				}
				line.Truncate(line.Len() - 1)
			}
		}
		line.WriteByte('}')
		if _, err := w.Write(line.Bytes()); err != nil {
			return err
		}
	}
	return rows.Err()
}
