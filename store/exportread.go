package store

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
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
	src := &sourceReader{r: rc}
	dec := json.NewDecoder(src)
	// fail turns a decoding error into the sentence for the file, unless
	// reading the file itself failed.
	fail := func(err error, format string, args ...any) error {
		if src.err != nil {
			return src.err
		}
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return Invalid("file", "The export is not valid JSON: %v (at byte %d).", strings.TrimPrefix(err.Error(), "json: "), dec.InputOffset())
		}
		return Invalid("file", format, append(args, err)...)
	}
	if tok, err := dec.Token(); err != nil {
		return fail(err, "The export is not valid JSON: %v.")
	} else if tok != json.Delim('{') {
		return Invalid("file", "The export is not valid JSON: it is not an object.")
	}
	var format string
	var version int
	next := 0 // the first of exportTables that may still come
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail(err, "The export is not valid JSON: %v.")
		}
		key := tok.(string)
		switch key {
		case "format":
			if err := dec.Decode(&format); err != nil {
				return fail(err, "The export's format is not text: %v.")
			}
			if format != ExportFormat {
				return Invalid("file", "This is not a Recur export: its format is %q, not %q.", format, ExportFormat)
			}
			continue
		case "version":
			if err := dec.Decode(&version); err != nil {
				return fail(err, "The export's version is not a whole number: %v.")
			}
			continue
		case "exported_at", "user":
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(err, "The export's %s cannot be read: %v.", key)
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
		if err := readTable(dec, key, visit, fail); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err, "The export is not valid JSON: %v.")
	}
	if _, err := dec.Token(); err != io.EOF {
		if src.err != nil {
			return src.err
		}
		return Invalid("file", "The export is not valid JSON: something follows its end (at byte %d).", dec.InputOffset())
	}
	switch {
	case format != ExportFormat:
		return Invalid("file", "This is not a Recur export: its format is %q, not %q.", format, ExportFormat)
	case version != ExportVersion:
		return Invalid("file", "This export has format version %d; this Recur reads version %d. Import it with the Recur version that matches.", version, ExportVersion)
	}
	return nil
}

// readTable reads one table's list of records, a record at a time.
func readTable(dec *json.Decoder, table string, visit func(string, int, *exportRow) error, fail func(error, string, ...any) error) error {
	tok, err := dec.Token()
	if err != nil {
		return fail(err, "The export's %s is not a list of records: %v.", table)
	}
	if tok == nil { // null: no records
		return nil
	}
	if tok != json.Delim('[') {
		return Invalid("file", "The export's %s is not a list of records.", table)
	}
	var row exportRow // reused: a record is written before the next is read
	for i := 0; dec.More(); i++ {
		if err := dec.Decode(&row); err != nil {
			return fail(err, "The export's %s is not a list of records: %v.", table)
		}
		if err := visit(table, i, &row); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err, "The export's %s is not a list of records: %v.", table)
	}
	return nil
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
// that it is told apart from content that is not JSON.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
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

// UnmarshalJSON reads one flat JSON object. json.Decoder hands it a value
// it has already checked to be well-formed JSON, which is why this reader
// can be small; it still stops, never panics, on anything else.
func (r *exportRow) UnmarshalJSON(data []byte) error {
	r.names, r.values = r.names[:0], r.values[:0]
	p := rowParser{data: data}
	if !p.eat('{') {
		return errNotRecord
	}
	if p.eat('}') {
		return nil
	}
	for {
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return errNotRecord
		}
		v, ok := p.value()
		if !ok {
			return errNotRecord
		}
		r.names = append(r.names, key)
		r.values = append(r.values, v)
		switch {
		case p.eat(','):
		case p.eat('}'):
			return nil
		default:
			return errNotRecord
		}
	}
}

// rowParser walks a well-formed JSON value.
type rowParser struct {
	data []byte
	pos  int
}

// space skips white space.
func (p *rowParser) space() {
	for p.pos < len(p.data) && (p.data[p.pos] == ' ' || p.data[p.pos] == '\n' || p.data[p.pos] == '\r' || p.data[p.pos] == '\t') {
		p.pos++
	}
}

// eat skips white space and then c, if c comes next.
func (p *rowParser) eat(c byte) bool {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// str reads a string. One without escapes is taken as it is; the rest
// (and invalid UTF-8) go through encoding/json, which decodes them as
// json.Unmarshal always has.
func (p *rowParser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start, escaped := p.pos, false
	for p.pos < len(p.data) && p.data[p.pos] != '"' {
		if p.data[p.pos] == '\\' {
			escaped = true
			p.pos++
		}
		p.pos++
	}
	if p.pos >= len(p.data) {
		return "", false
	}
	raw := p.data[start:p.pos]
	p.pos++
	if !escaped && utf8.Valid(raw) {
		return string(raw), true
	}
	var s string
	err := json.Unmarshal(p.data[start-1:p.pos], &s)
	return s, err == nil
}

// value reads a field's value.
func (p *rowParser) value() (any, bool) {
	p.space()
	if p.pos >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.pos]; {
	case c == '"':
		return p.str()
	case c == 'n':
		p.pos += len("null")
		return nil, p.pos <= len(p.data)
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.data) && isNumberByte(p.data[p.pos]) {
			p.pos++
		}
		return json.Number(p.data[start:p.pos]), true
	}
	// true, false, a list or an object: skipped whole.
	depth := 0
	for ; p.pos < len(p.data); p.pos++ {
		switch p.data[p.pos] {
		case '"':
			if _, ok := p.str(); !ok {
				return nil, false
			}
			p.pos--
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return badValue{}, true
			}
			if depth--; depth == 0 {
				p.pos++
				return badValue{}, true
			}
		case ',':
			if depth == 0 {
				return badValue{}, true
			}
		}
	}
	return badValue{}, depth == 0
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
