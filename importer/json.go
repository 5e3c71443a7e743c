package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// recurExportFormat is the "format" of a Recur export document.
const recurExportFormat = "recur-export"

// jsonStream decodes a JSON export as a stream: its entries are decoded one
// at a time, and no value but an entry is ever held whole, so what it costs
// is bounded by MaxEntryBytes whatever the file holds.
type jsonStream struct {
	f   file
	rc  io.ReadCloser
	lr  *limitedReader
	dec *json.Decoder
	bom int64 // bytes of a byte-order mark skipped at the start
}

// openJSON opens a JSON file for streaming, at most limit bytes of it.
func openJSON(f file, limit int64) (*jsonStream, error) {
	rc, err := f.open()
	if err != nil {
		return nil, errorf(f.path, "cannot be read (%v); upload the files again.", unwrapPath(err))
	}
	s := &jsonStream{f: f, rc: rc, lr: &limitedReader{r: rc, max: limit, value: MaxEntryBytes}}
	br := bufio.NewReaderSize(s.lr, 512)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\ufeff")) {
		br.Discard(3)
		s.bom = 3
	}
	s.dec = json.NewDecoder(br)
	return s, nil
}

func (s *jsonStream) close() { s.rc.Close() }

// token reads the next token; a string token is bounded like a value.
func (s *jsonStream) token() (json.Token, error) {
	s.lr.start = s.lr.n
	return s.dec.Token()
}

// decode decodes the next value into v, at most MaxEntryBytes of it.
func (s *jsonStream) decode(v any) error {
	s.lr.start = s.lr.n
	return s.dec.Decode(v)
}

// skip consumes the rest of a value whose first token was tok.
func (s *jsonStream) skip(tok json.Token) error {
	if d, ok := tok.(json.Delim); !ok || d == '}' || d == ']' {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := s.token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// walk reads the top-level object: for "entries" holding an array it calls
// entry once per element (which must decode it), and key for every other
// key with the value's first token (key must consume the value or return
// false to have it skipped). entry or key return stop to end the walk early.
func (s *jsonStream) walk(key func(name string, first json.Token) (bool, error), entry func(i int) error) error {
	tok, err := s.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errNotObject
	}
	for s.dec.More() {
		k, err := s.token()
		if err != nil {
			return err
		}
		first, err := s.token()
		if err != nil {
			return err
		}
		if k == "entries" && first == json.Delim('[') && entry != nil {
			if key != nil {
				key("entries", first)
			}
			for i := 0; s.dec.More(); i++ {
				if err := entry(i); err != nil {
					return err
				}
			}
			if _, err := s.token(); err != nil { // the closing ]
				return err
			}
			continue
		}
		consumed := false
		if key != nil {
			name, _ := k.(string)
			if consumed, err = key(name, first); err != nil {
				return err
			}
		}
		if !consumed {
			if err := s.skip(first); err != nil {
				return err
			}
		}
	}
	_, err = s.token() // the closing }
	return err
}

// errStop ends a walk that has learnt what it wanted; errNotObject is a
// document that is not a JSON object.
var (
	errStop      = errors.New("stop")
	errNotObject = errors.New("not an object")
)

// classify tells which export a JSON file is by its keys: Recur (a
// "format" of "recur-export"), Day One ("metadata" and "entries", or entries
// with "creationDate"), jrnl (entries with "date", "title" or "body", or
// top-level "tags" beside "entries"), or "" for JSON of something else. The
// first entry with a telling key decides.
func (r *reader) classify(f file) (Format, error) {
	s, err := openJSON(f, min(MaxJSONBytes, r.budget))
	if err != nil {
		return "", err
	}
	defer s.close()
	var kind Format
	var metadata, tags, entries bool
	err = s.walk(func(name string, first json.Token) (bool, error) {
		switch name {
		case "format":
			if first == recurExportFormat {
				kind = Recur
				return true, errStop
			}
		case "metadata":
			metadata = true
		case "tags":
			tags = true
		case "entries":
			entries = first == nil || first == json.Delim('[') // null is an empty list
		}
		return false, nil
	}, func(i int) error {
		entries = true
		var e map[string]json.RawMessage
		if err := s.decode(&e); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				kind = "" // entries that are not objects: no journal
				return errStop
			}
			return s.fail(err, i)
		}
		// jrnl writes a "uuid" too for journals it keeps in Day One's
		// format, so the keys only one of them writes decide first.
		switch {
		case has(e, "creationDate"):
			kind = DayOne
		case has(e, "date", "title", "body"):
			kind = JRNL
		case has(e, "text", "richText", "modifiedDate", "uuid"):
			kind = DayOne
		default:
			return nil
		}
		return errStop
	})
	switch {
	case errors.Is(err, errStop):
		return kind, nil
	case errors.Is(err, errNotObject):
		return "", errorf(f.path, "not a JSON object; export it again and upload the file unchanged.")
	case err != nil:
		return "", s.fail(err, -1)
	}
	switch {
	case !entries:
		return "", nil
	case metadata:
		return DayOne, nil
	case tags:
		return JRNL, nil
	}
	return "", nil
}

// has reports whether m holds any of keys.
func has(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// eachEntry decodes the "entries" of a Day One or jrnl export one at a
// time into a T and hands each to use, naming the entry that does not fit.
func eachEntry[T any](r *reader, f file, use func(i int, e *T) error) error {
	s, err := openJSON(f, min(MaxJSONBytes, r.budget))
	if err != nil {
		return err
	}
	defer s.close()
	err = s.walk(nil, func(i int) error {
		var e T
		if err := s.decode(&e); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) && typ.Field != "" {
				return errorf(entrySource(f.path, i), "its %q is a JSON %s where %s belongs; export the journal again and upload the file unchanged.", typ.Field, typ.Value, typ.Type)
			} else if errors.As(err, &typ) {
				return errorf(entrySource(f.path, i), "not a journal entry (%v); export the journal again and upload the file unchanged.", err)
			}
			return s.fail(err, i)
		}
		return use(i, &e)
	})
	var ie *Error
	switch {
	case errors.As(err, &ie):
		return err
	case err != nil:
		return s.fail(err, -1)
	}
	r.budget -= s.lr.n
	return nil
}

// fail turns an error met while decoding entry i (or -1 for none) into an
// *Error that names the file or entry and, for JSON that is not valid, says
// where in the file it went wrong.
func (s *jsonStream) fail(err error, i int) error {
	var ie *Error
	var syntax *json.SyntaxError
	source := s.f.path
	if i >= 0 {
		source = entrySource(s.f.path, i)
	}
	switch {
	case errors.As(err, &ie):
		return err
	case errors.Is(err, errValueTooLarge) && i >= 0:
		return errorf(source, "the entry is larger than %s, the limit for one entry; shorten it and upload the file again.", sizeText(MaxEntryBytes))
	case errors.Is(err, errValueTooLarge):
		return errorf(source, "holds a value larger than %s, the limit for one value of a journal export; export it again and upload the file unchanged.", sizeText(MaxEntryBytes))
	case errors.Is(err, errFileTooLarge):
		if s.lr.max < MaxJSONBytes {
			return errTotalSize(s.lr.max)
		}
		return errFileSize(s.f.path, "a JSON export", MaxJSONBytes)
	case errors.As(err, &syntax):
		line, col := position(s.f, s.bom+s.dec.InputOffset(), true)
		return errorf(s.f.path, "not valid JSON near line %d, column %d (%v); export it again and upload the file unchanged.", line, col, syntax)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		line, col := position(s.f, s.lr.n, false)
		return errorf(s.f.path, "not valid JSON near line %d, column %d (unexpected end of JSON input); export it again and upload the file unchanged.", line, col)
	}
	return errorf(s.f.path, "cannot be read (%v); make the zip again and upload it.", unwrapPath(err))
}

// position turns a byte offset into a file into a 1-based line and column,
// reading the file again up to it. With next it points past the first
// character at or after the offset that is not a space: where a decoder
// that stopped at offset found fault.
func position(f file, offset int64, next bool) (line, col int) {
	line, col = 1, 1
	rc, err := f.open()
	if err != nil {
		return line, col
	}
	defer rc.Close()
	br := bufio.NewReader(io.LimitReader(rc, MaxJSONBytes))
	for n := int64(0); ; n++ {
		c, err := br.ReadByte()
		if err != nil {
			return line, col
		}
		if n >= offset && (!next || !isSpace(c)) {
			if next {
				col++
			}
			return line, col
		}
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
