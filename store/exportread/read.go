// Package exportread reads a Recur export document as a stream: its head,
// then its tables a record at a time, holding no more than the record at
// hand however large the document. It accepts exactly the JSON
// encoding/json accepts, nested no deeper than MaxDepth, and reads values
// as encoding/json does; what it refuses it says in a sentence for the
// person who made the document, with the byte where JSON goes wrong.
package exportread

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Layout is what a document must hold: the format and version its head
// names, the other fields of the head, which are checked and skipped, and
// the tables that may follow, in their order.
type Layout struct {
	Format  string
	Version int
	Skip    []string
	Tables  []string
}

// Error is content that breaks JSON or the layout, said in a sentence.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func invalidf(format string, args ...any) error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// Read reads a document laid out as l from r as a stream and calls visit
// with every record of its tables, in order. The head (format and version)
// must come before the tables, and the tables in the order of l.Tables.
// Content that breaks this gives an *Error; visit's errors and errors
// reading the document are returned as they are.
func Read(r io.Reader, l Layout, visit func(table string, i int, row *Row) error) error {
	d := newDecoder(r)
	if c, ok := d.space(); !ok {
		return d.invalid(d.off, "EOF")
	} else if c != '{' {
		if err := d.skip(c, 0); err != nil {
			return err
		}
		return invalidf("The export is not valid JSON: it is not an object.")
	}
	var format string
	var version int
	next := 0 // the first of l.Tables that may still come
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
		switch {
		case key == "format":
			if typeErr, err := d.headValue(&format); err != nil {
				return err
			} else if typeErr != nil {
				return invalidf("The export's format is not text: %v.", typeErr)
			}
			if format != l.Format {
				return invalidf("This is not a Recur export: its format is %q, not %q.", format, l.Format)
			}
			continue
		case key == "version":
			if typeErr, err := d.headValue(&version); err != nil {
				return err
			} else if typeErr != nil {
				return invalidf("The export's version is not a whole number: %v.", typeErr)
			}
			continue
		case slices.Contains(l.Skip, key):
			c, err := d.next()
			if err != nil {
				return err
			}
			if err := d.skip(c, 1); err != nil {
				return err
			}
			continue
		}
		t := slices.Index(l.Tables, key)
		switch {
		case t < 0:
			return invalidf("The export has an unknown part %q.", key)
		case format != l.Format:
			return invalidf("This is not a Recur export: it does not start with \"format\": %q.", l.Format)
		case version != l.Version:
			return invalidf("This export has format version %d; this Recur reads version %d. Import it with the Recur version that matches.", version, l.Version)
		case t < next:
			return invalidf("The export's %s come after a part that follows them, or twice; an export lists %s.", key, strings.Join(l.Tables, ", "))
		}
		next = t + 1
		if err := d.readTable(key, visit); err != nil {
			return err
		}
	}
	if _, ok := d.space(); ok {
		return invalidf("The export is not valid JSON: something follows its end (at byte %d).", d.off-1)
	} else if d.src.err != nil {
		return d.src.err
	}
	switch {
	case format != l.Format:
		return invalidf("This is not a Recur export: its format is %q, not %q.", format, l.Format)
	case version != l.Version:
		return invalidf("This export has format version %d; this Recur reads version %d. Import it with the Recur version that matches.", version, l.Version)
	}
	return nil
}

// readTable reads one table's list of records, a record at a time: null
// is a table without records.
func (d *decoder) readTable(table string, visit func(string, int, *Row) error) error {
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
		return invalidf("The export's %s is not a list of records.", table)
	}
	if c, err = d.next(); err != nil || c == ']' {
		return err
	}
	var row Row // reused: a record is written before the next is read
	for i := 0; ; i++ {
		if c != '{' {
			if err := d.skip(c, 2); err != nil {
				return err
			}
			return invalidf("The export's %s is not a list of records: %v.", table, errNotRecord)
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

// Row is one record of an export's table as read back: its fields in the
// order written, Names[i] holding Values[i], each value a string, a
// json.Number or nil; any other JSON value (true, a list, an object) is a
// BadValue, which no column takes. The columns are not fixed here but read
// from the table, so that a column a later migration adds travels in
// exports without a change to this code. A Row is reused for the next
// record once visit returns.
type Row struct {
	Names  []string
	Values []any
}

// BadValue stands for a JSON value no column can hold.
type BadValue struct{}

// errNotRecord refuses a record that is not a JSON object.
var errNotRecord = errors.New("a record is not an object")

// Get returns the value of a field, nil when the record has none.
func (r *Row) Get(name string) any {
	if i := slices.Index(r.Names, name); i >= 0 {
		return r.Values[i]
	}
	return nil
}

// record reads a record, after its opening brace, into row: its fields in
// the order written, a name given twice kept twice.
func (d *decoder) record(row *Row) error {
	before := row.Names // the record before's names, overwritten as they are read
	row.Names, row.Values = row.Names[:0], row.Values[:0]
	c, err := d.next()
	if err != nil || c == '}' {
		return err
	}
	for {
		if c != '"' {
			return d.unexpected(c, "looking for beginning of object key string")
		}
		same := ""
		if k := len(row.Names); k < len(before) {
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
		row.Names = append(row.Names, name)
		row.Values = append(row.Values, v)
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
// json.Number, nil for null, and a BadValue for anything else, which is
// still checked whole.
func (d *decoder) value(c byte) (any, error) {
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
	return BadValue{}, d.skip(c, 3) // a record is the third level
}

// headValue reads the value of "format" or "version" into v as
// json.Decoder.Decode does; a value of the wrong kind gives the error
// json.Unmarshal gives for it, as typeErr.
func (d *decoder) headValue(v any) (typeErr, err error) {
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
