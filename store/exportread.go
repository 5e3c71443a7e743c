package store

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

// readExport reads an export document from open as a stream and calls
// visit with every record of its tables, in order. The head (format and
// version) must come before the tables, and the tables in the order Export
// writes them. Content that breaks this gives EINVALID under "file"; visit's
// errors and errors reading the document are returned as they are.
func readExport(open func() (io.ReadCloser, error), visit func(table string, i int, row *exportRow) error) error {
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	d := newExportDecoder(rc)
	if c, ok := d.space(); !ok {
		return d.invalid(d.off, "EOF")
	} else if c != '{' {
		if err := d.skip(c, 0); err != nil {
			return err
		}
		return Invalid("file", "The export is not valid JSON: it is not an object.")
	}
	var format string
	var version int
	next := 0 // the first of exportTables that may still come
	// A field of the document at a time; after each, its comma or its end.
	c, err := d.next()
	for done := c == '}'; !done; c, done, err = d.after('}', "after object key:value pair") {
		if err != nil {
			return err
		}
		if c != '"' {
			return d.unexpected(c, "looking for beginning of object key string")
		}
		key, err := d.str(strName, "")
		if err != nil {
			return err
		}
		if err := d.expect(':', "after object key"); err != nil {
			return err
		}
		switch key {
		case "format":
			if typeErr, err := d.headValue(&format); err != nil {
				return err
			} else if typeErr != nil {
				return Invalid("file", "The export's format is not text: %v.", typeErr)
			}
			if format != ExportFormat {
				return Invalid("file", "This is not a Recur export: its format is %q, not %q.", format, ExportFormat)
			}
			continue
		case "version":
			if typeErr, err := d.headValue(&version); err != nil {
				return err
			} else if typeErr != nil {
				return Invalid("file", "The export's version is not a whole number: %v.", typeErr)
			}
			continue
		case "exported_at", "user":
			c, err := d.next()
			if err != nil {
				return err
			}
			if err := d.skip(c, 1); err != nil {
				return err
			}
			continue
		}
		t := slices.IndexFunc(exportTables, func(t exportTable) bool { return t.name == key })
		switch {
		case t < 0:
			return Invalid("file", "The export has an unknown part %q.", key)
		case format != ExportFormat:
			return Invalid("file", "This is not a Recur export: it does not start with \"format\": %q.", ExportFormat)
		case version != ExportVersion:
			return Invalid("file", "This export has format version %d; this Recur reads version %d. Import it with the Recur version that matches.", version, ExportVersion)
		case t < next:
			return Invalid("file", "The export's %s come after a part that follows them, or twice; an export lists %s.", key, tableNames())
		}
		next = t + 1
		if err := d.readTable(key, visit); err != nil {
			return err
		}
	}
	if _, ok := d.space(); ok {
		return Invalid("file", "The export is not valid JSON: something follows its end (at byte %d).", d.off-1)
	} else if d.src.err != nil {
		return d.src.err
	}
	switch {
	case format != ExportFormat:
		return Invalid("file", "This is not a Recur export: its format is %q, not %q.", format, ExportFormat)
	case version != ExportVersion:
		return Invalid("file", "This export has format version %d; this Recur reads version %d. Import it with the Recur version that matches.", version, ExportVersion)
	}
	return nil
}

// readTable reads one table's list of records, a record at a time: null
// is a table without records.
func (d *exportDecoder) readTable(table string, visit func(string, int, *exportRow) error) error {
	c, err := d.next()
	if err != nil {
		return err
	}
	if c == 'n' {
		return d.literal("null")
	}
	if c != '[' {
		if c != '{' {
			if err := d.skip(c, 1); err != nil {
				return err
			}
		}
		return Invalid("file", "The export's %s is not a list of records.", table)
	}
	if c, err = d.next(); err != nil || c == ']' {
		return err
	}
	var row exportRow // reused: a record is written before the next is read
	for i := 0; ; i++ {
		if c != '{' {
			if err := d.skip(c, 2); err != nil {
				return err
			}
			return Invalid("file", "The export's %s is not a list of records: %v.", table, errNotRecord)
		}
		if err := d.record(&row); err != nil {
			return err
		}
		if err := visit(table, i, &row); err != nil {
			return err
		}
		var done bool
		if c, done, err = d.after(']', "after array element"); err != nil || done {
			return err
		}
	}
}

// tableNames lists the export's tables in their order.
func tableNames() string {
	names := make([]string, len(exportTables))
	for i, t := range exportTables {
		names[i] = t.name
	}
	return strings.Join(names, ", ")
}

// sourceReader remembers the error reading the document ended with, so
// that it is told apart from content that is not JSON. After an error it
// reads no further.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// exportRow is one record of an export's table as read back: its fields in
// the order written, each value a string, a json.Number or nil; any other
// JSON value (true, a list, an object) is a badValue, which no column takes.
// The columns are not fixed here but read from the table, so that a column
// a later migration adds travels in exports without a change to this code.
type exportRow struct {
	names  []string
	values []any
}

// badValue stands for a JSON value no column can hold.
type badValue struct{}

// errNotRecord refuses a record that is not a JSON object.
var errNotRecord = errors.New("a record is not an object")

// get returns the value of a field, nil when the record has none.
func (r *exportRow) get(name string) any {
	if i := slices.Index(r.names, name); i >= 0 {
		return r.values[i]
	}
	return nil
}

// record reads a record, after its opening brace, into row: its fields in
// the order written, a name given twice kept twice.
func (d *exportDecoder) record(row *exportRow) error {
	before := row.names // the record before's names, overwritten as they are read
	row.names, row.values = row.names[:0], row.values[:0]
	c, err := d.next()
	if err != nil || c == '}' {
		return err
	}
	for {
		if c != '"' {
			return d.unexpected(c, "looking for beginning of object key string")
		}
		same := ""
		if k := len(row.names); k < len(before) {
			same = before[k]
		}
		name, err := d.str(strName, same)
		if err != nil {
			return err
		}
		if err := d.expect(':', "after object key"); err != nil {
			return err
		}
		if c, err = d.next(); err != nil {
			return err
		}
		v, err := d.value(c)
		if err != nil {
			return err
		}
		row.names = append(row.names, name)
		row.values = append(row.values, v)
		var done bool
		if c, done, err = d.after('}', "after object key:value pair"); err != nil || done {
			return err
		}
	}
}

// digitValues are the numbers of one digit as field values, made once.
var digitValues = [10]any{json.Number("0"), json.Number("1"), json.Number("2"), json.Number("3"), json.Number("4"),
	json.Number("5"), json.Number("6"), json.Number("7"), json.Number("8"), json.Number("9")}

// value reads a record's field value, which starts with c: a string, a
// json.Number, nil for null, and a badValue for anything else, which is
// still checked whole.
func (d *exportDecoder) value(c byte) (any, error) {
	switch {
	case c == '"':
		s, err := d.str(strValue, "")
		return s, err
	case c == '-' || isDigit(c):
		n, err := d.number(c)
		if len(n) == 1 {
			return digitValues[n[0]-'0'], err
		}
		return json.Number(n), err
	case c == 'n':
		return nil, d.literal("null")
	}
	return badValue{}, d.skip(c, 3) // a record is the third level
}

// headValue reads the value of "format" or "version" into v as
// json.Decoder.Decode does; a value of the wrong kind gives the error
// json.Unmarshal gives for it, as typeErr.
func (d *exportDecoder) headValue(v any) (typeErr, err error) {
	c, err := d.next()
	if err != nil {
		return nil, err
	}
	var raw []byte // the value, or one of the same kind
	switch {
	case c == '"':
		s, err := d.str(strValue, "")
		if err != nil {
			return nil, err
		}
		if p, ok := v.(*string); ok {
			*p = s
			return nil, nil
		}
		raw = []byte(`""`)
	case c == '-' || isDigit(c):
		if raw, err = d.number(c); err != nil {
			return nil, err
		}
	default:
		if err := d.skip(c, 1); err != nil {
			return nil, err
		}
		raw = []byte(map[byte]string{'n': "null", 't': "true", 'f': "false", '[': "[]", '{': "{}"}[c])
	}
	return json.Unmarshal(raw, v), nil
}
