package store

import (
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"
)

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
