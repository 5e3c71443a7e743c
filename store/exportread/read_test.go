package exportread

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// layout is the layout of Recur's exports, as store reads them.
var layout = Layout{Format: "recur-export", Version: 1, Skip: []string{"exported_at", "user"},
	Tables: []string{"settings", "categories", "tags", "captures", "segments", "segment_tags", "patterns", "correlations", "flows"}}

// visited is one call of Read's visit, its row copied.
type visited struct {
	table  string
	i      int
	names  []string
	values []any
}

// readAll reads a document laid out as layout from r with Read, recording
// every visit.
func readAll(r io.Reader) ([]visited, error) {
	var got []visited
	err := Read(r, layout, func(table string, i int, row *Row) error {
		got = append(got, visited{table, i, append([]string(nil), row.Names...), append([]any(nil), row.Values...)})
		return nil
	})
	return got, err
}

// referenceRead is Read's contract written on encoding/json: the
// records it visits and whether it accepts the document. It reads a value
// whole before looking at it, except a table, which it reads a record at a
// time as Read does, so that both visit the same records before
// refusing.
func referenceRead(doc []byte) (visits []visited, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var format string
	var version int
	next := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return visits, false
		}
		key := tok.(string)
		if key == "format" || key == "version" || key == "exported_at" || key == "user" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil || 1+nesting(raw) > MaxDepth {
				return visits, false
			}
			switch key {
			case "format":
				if json.Unmarshal(raw, &format) != nil || format != layout.Format {
					return visits, false
				}
			case "version":
				if json.Unmarshal(raw, &version) != nil {
					return visits, false
				}
			}
			continue
		}
		t := slices.Index(layout.Tables, key)
		if t < next || format != layout.Format || version != layout.Version {
			return visits, false
		}
		next = t + 1
		if tok, err = dec.Token(); err != nil {
			return visits, false
		} else if tok == nil {
			continue
		} else if tok != json.Delim('[') {
			return visits, false
		}
		for i := 0; dec.More(); i++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil || 2+nesting(raw) > MaxDepth {
				return visits, false
			}
			names, values, ok := referenceRecord(raw)
			if !ok {
				return visits, false
			}
			visits = append(visits, visited{key, i, names, values})
		}
		if _, err := dec.Token(); err != nil {
			return visits, false
		}
	}
	if _, err := dec.Token(); err != nil {
		return visits, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return visits, false
	}
	return visits, format == layout.Format && version == layout.Version
}

// referenceRecord reads a record checked to be JSON: an object's fields
// in order, each value as encoding/json decodes it with UseNumber, true,
// false, lists and objects standing as BadValue.
func referenceRecord(raw []byte) (names []string, values []any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		tok, _ := dec.Token()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		switch v.(type) {
		case string, json.Number, nil:
		default:
			v = BadValue{}
		}
		names, values = append(names, tok.(string)), append(values, v)
	}
	return names, values, true
}

// nesting is how deep lists and objects nest in a JSON value.
func nesting(raw []byte) int {
	depth, most, quoted := 0, 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '[' || c == '{':
			depth++
			most = max(most, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return most
}

const head = `{"format": "recur-export", "version": 1, `

// exportSeeds are real and broken documents, for the fuzz test and its
// corpus.
func exportSeeds(tb testing.TB) []string {
	real, _ := syntheticExport(tb, docSize{captures: 3, segments: 5, segmentTags: 8, flows: 4}, 7)
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	seeds := []string{
		string(real), string(real[:len(real)/2]), string(real) + "{}", string(real) + " \n\t\r",
		"", " ", "{}", "[]", "null", "\"x\"", "1", "tru", "{", `{"format"}`, `{"format" "x"}`, `{"format": "recur-export",}`,
		head + `"captures": null}`, head + `"captures": []}`, head + `"captures": {}}`, head + `"captures": "x"}`, head + `"captures": [1]}`,
		head + `"captures": [[]]}`, head + `"captures": [{}, 1]}`, head + `"captures": [{},]}`, head + `"captures": [{} {}]}`,
		head + `"captures": [{"a": 1,}]}`, head + `"captures": [{"a" 1}]}`, head + `"captures": [{"a": 1 "b": 2}]}`, head + `"captures": [{1: 2}]}`,
		head + `"captures": [{"a": 1, "a": "x", "b": null, "c": true, "d": false, "e": [1, {"f": [null]}], "g": {}}]}`,
		head + `"captures": [{"n": 0, "m": -0, "o": 12.5e-3, "p": 1E+9, "q": -7.25}]}`,
		head + `"captures": [{"a": 01}]}`, head + `"captures": [{"a": 1.}]}`, head + `"captures": [{"a": -}]}`, head + `"captures": [{"a": 1e}]}`,
		head + `"captures": [{"a": 1e+}]}`, head + `"captures": [{"a": .5}]}`, head + `"captures": [{"a": +1}]}`, head + `"captures": [{"a": 1x}]}`,
		head + `"captures": [{"a": nul}]}`, head + `"captures": [{"a": truex}]}`, head + `"captures": [{"a": [1,]}]}`, head + `"captures": [{"a": {"b":}}]}`,
		head + `"captures": [{"a": "\u00e9\ud83d\ude00 \ud800 \ud800\u0041 \udc00 \ud800\ud800\udc00 \ud83d"}]}`,
		head + `"captures": [{"a": "\"\\\/\b\f\n\r\t", "\u0062": "\u003cb\u003e"}]}`,
		head + `"captures": [{"a": "\x"}]}`, head + `"captures": [{"a": "\u12g4"}]}`, head + "\"captures\": [{\"a\": \"tab\there\"}]}", head + "\"captures\": [{\"a\": \"unit \x1f separator\", \"b\": \"delete \x7f\"}]}",
		head + "\"captures\": [{\"a\": \"bad \xff\xfe utf8 \xed\xa0\x80 \xe2\x82\"}]}", head + "\"captures\": [{\"a\": \"cut \\",
		head + `"captures": [{"a": "unterminated`, head + `"captures": [{"a": 1`, head + `"captures": [{"a": 1}`,
		head + `"user": ` + deep(62) + `}`, head + `"user": ` + deep(63) + `}`, head + `"user": ` + deep(64) + `}`,
		head + `"captures": [{"a": ` + deep(60) + `}]}`, head + `"captures": [{"a": ` + deep(61) + `}]}`, head + `"captures": [{"a": ` + deep(62) + `}]}`,
		head + `"exported_at": {"x": [1, "y", {"z": null}]}, "user": "u", "settings": [{"key": "a"}]}`,
		head + `"tags": [], "categories": []}`, head + `"captures": [], "captures": []}`, head + `"photos": []}`,
		`{"captures": []}`, `{"version": 1, "format": "recur-export", "settings": []}`, `{"format": "recur-export", "version": 2}`,
		`{"format": 1, "version": 1}`, `{"format": null, "version": 1}`, `{"format": "recur-export", "version": "1"}`,
		`{"format": "recur-export", "version": 1.0}`, `{"format": "recur-export", "version": 1e0}`, `{"format": "recur-export", "version": null, "version": 1}`,
		`{"format": "recur-export", "version": [1]}`, `{"format": "recur-export", "version": 99999999999999999999}`,
		`{"form\u0061t": "recur-export", "version": 1, "capt\u0075res": [{"a": "b"}]}`, `{"format": "recur-export", "version": 1} x`,
		"\xef\xbb\xbf{}", `{"format": "recur-export", "version": 1, "settings": [{"key": "a", "value": "b"}], "flows": null}`,
	}
	return seeds
}

// FuzzReadExport holds Read to encoding/json: for any document it
// accepts exactly what the reference accepts and visits the same records
// with the same names and values, also when the document arrives a byte
// at a time; what it refuses is an *Error. Nothing panics.
func FuzzReadExport(f *testing.F) {
	for _, seed := range exportSeeds(f) {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		want, ok := referenceRead(doc)
		for _, r := range []io.Reader{bytes.NewReader(doc), iotest.OneByteReader(bytes.NewReader(doc))} {
			got, err := readAll(r)
			if (err == nil) != ok {
				t.Fatalf("Read(%q) = %v; encoding/json accepts it: %v", doc, err, ok)
			}
			var se *Error
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("Read(%q) = %v; want an *Error", doc, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Read(%q) visited\n%#v\nencoding/json reads\n%#v", doc, got, want)
			}
		}
	})
}

// TestReadExportMatchesEncodingJSON reads a larger export, whose strings
// and records cross the reader's buffer, as encoding/json reads it.
func TestReadExportMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	doc, records := syntheticExport(t, docSize{captures: 200, segments: 900, segmentTags: 6000, flows: 2500}, 3)
	// A text far longer than the buffer, escapes and characters beyond
	// ASCII falling on its edges.
	long, _ := json.Marshal(strings.Repeat("line \"one\"\n\tnaïve café 日本 \U0001F600 <&> \u2028", 4000))
	doc = bytes.Replace(doc, []byte(`"language":"en"`), []byte(`"language":`+string(long)), 1)
	want, ok := referenceRead(doc)
	if !ok || len(want) != records {
		t.Fatalf("encoding/json reads %d records, accepting it: %v; want %d", len(want), ok, records)
	}
	got, err := readAll(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("record %d read as\n%#v\nwant\n%#v", i, got[i], want[i])
			}
		}
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
}

// TestReadExportValues: a record's values are strings decoded as
// encoding/json decodes them, numbers as their literal, null as nil and
// anything else a BadValue; a name given twice is kept twice.
func TestReadExportValues(t *testing.T) {
	t.Parallel()
	doc := head + `"captures": [{"s": "a\"b\\c\n\u00e9\ud83d\ude00\ud800x", "n": -12.50e+3, "z": 0, "nil": null, "t": true, "f": false,` +
		` "l": [1, "x"], "o": {"k": [{}]}, "s": "` + "\xff" + `"}]}`
	got, err := readAll(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []visited{{"captures", 0, []string{"s", "n", "z", "nil", "t", "f", "l", "o", "s"},
		[]any{"a\"b\\c\né\U0001F600\uFFFDx", json.Number("-12.50e+3"), json.Number("0"), nil, BadValue{}, BadValue{}, BadValue{}, BadValue{}, "\uFFFD"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read\n%#v\nwant\n%#v", got, want)
	}
}

// TestReadExportMessages: what is wrong with a document is said in the
// sentences users see, a fault in the JSON with the byte where it is.
func TestReadExportMessages(t *testing.T) {
	t.Parallel()
	rec := head + `"captures": [`
	for _, c := range []struct {
		name, doc string
		fault     string // where the document goes wrong: the byte named is its first; "" for the end
		want      string
	}{
		{"Empty", "", "", "The export is not valid JSON: EOF"},
		{"NotAnObject", `[1, 2]`, "-", "The export is not valid JSON: it is not an object."},
		{"Literal", `{"format": tru}`, "}", "The export is not valid JSON: invalid character '}' in literal true (expecting 'e')"},
		{"LeadingZero", rec + `{"a": 01}]}`, "1}", "invalid character '1' after object key:value pair"},
		{"Point", rec + `{"a": 1.}]}`, "}]", "invalid character '}' after decimal point in numeric literal"},
		{"Minus", rec + `{"a": -}]}`, "}]", "invalid character '}' in numeric literal"},
		{"Exponent", rec + `{"a": 1e}]}`, "}]", "invalid character '}' in exponent of numeric literal"},
		{"ControlCharacter", rec + "{\"a\": \"x\ty\"}]}", "\t", `invalid character '\t' in string literal`},
		{"Escape", rec + `{"a": "\x"}]}`, `x"}`, "invalid character 'x' in string escape code"},
		{"Hex", rec + `{"a": "\u12g4"}]}`, "g4", `invalid character 'g' in \u hexadecimal character escape`},
		{"MissingComma", rec + `{} {}]}`, "{}]", "invalid character '{' after array element"},
		{"MissingColon", rec + `{"a" 1}]}`, "1}", "invalid character '1' after object key"},
		{"TrailingCommaInRecord", rec + `{"a": 1,}]}`, "}]", "invalid character '}' looking for beginning of object key string"},
		{"TrailingCommaInList", rec + `{"a": [1,]}]}`, "]}]", "invalid character ']' looking for beginning of value"},
		{"Unterminated", rec + `{"a": "text`, "", "The export is not valid JSON: unexpected EOF"},
		{"TooDeep", head + `"user": ` + strings.Repeat("[", 100), strings.Repeat("[", 100-63), "nest deeper than 64 levels"},
		{"Trailing", head + `"settings": []} {}`, "{}", "The export is not valid JSON: something follows its end"},
		{"NotAList", rec[:len(rec)-1] + `{}}`, "", "The export's captures is not a list of records."},
		{"RecordNotObject", rec + `{}, 1]}`, "", "The export's captures is not a list of records: a record is not an object."},
		{"FormatNotText", `{"format": 1}`, "", "The export's format is not text: json: cannot unmarshal number into Go value of type string."},
		{"VersionNotWhole", `{"format": "recur-export", "version": 1.5}`, "", "The export's version is not a whole number: json: cannot unmarshal number 1.5 into Go value of type int."},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(strings.NewReader(c.doc))
			var se *Error
			if !errors.As(err, &se) || !strings.Contains(se.Message, c.want) {
				t.Fatalf("err = %v; want an *Error saying %q", err, c.want)
			}
			if !strings.Contains(c.want, "valid JSON") || strings.HasSuffix(c.want, ".") {
				return // a sentence that names no byte
			}
			at := len(c.doc)
			if c.fault != "" {
				at = strings.LastIndex(c.doc, c.fault)
			}
			if want := fmt.Sprintf("(at byte %d).", at); !strings.HasSuffix(se.Message, want) {
				t.Fatalf("message %q does not end %q", se.Message, want)
			}
		})
	}
}

// TestReadExportReturnsReadErrors: an error reading the document, wherever
// it falls (in a string, an escape, a number, a skipped value, between
// records), comes back as it is, never as a sentence about the content.
func TestReadExportReturnsReadErrors(t *testing.T) {
	t.Parallel()
	doc := head + `"exported_at": {"x": [1.5e3, "y\u00e9", true]}, "captures": [{"a": "b\ud83d\ude00c", "n": -12, "m": null}, {"z": [{}]}]}`
	cut := errors.New("disk gone")
	for n := range len(doc) + 1 {
		for _, name := range []string{"Whole", "OneByte"} {
			var r io.Reader = io.MultiReader(strings.NewReader(doc[:n]), iotest.ErrReader(cut))
			if name == "OneByte" {
				r = iotest.OneByteReader(r)
			}
			if _, err := readAll(r); err != cut {
				t.Fatalf("%s, cut after %d bytes: err = %v; want the reading error", name, n, err)
			}
		}
	}
}

// TestReadExportStopsAtVisitError: visit's error is returned as it is and
// no record is read after it.
func TestReadExportStopsAtVisitError(t *testing.T) {
	t.Parallel()
	stop := errors.New("refused")
	calls := 0
	err := Read(strings.NewReader(head+`"captures": [{"a": 1}, {"a": 2}, {"a": tru}]}`), layout, func(string, int, *Row) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("err = %v after %d visits; want the visit's error after one", err, calls)
	}
}

// endless yields prefix, then n copies of part, then suffix, never holding
// them all.
type endless struct {
	prefix, part, suffix string
	n                    int
	pending              string
}

func (e *endless) Read(p []byte) (int, error) {
	for e.pending == "" {
		switch {
		case e.prefix != "":
			e.pending, e.prefix = e.prefix, ""
		case e.n > 0:
			e.pending = e.part
			e.n--
		case e.suffix != "":
			e.pending, e.suffix = e.suffix, ""
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, e.pending)
	e.pending = e.pending[n:]
	return n, nil
}

// TestReadExportHoldsOneRecord: a huge value that is skipped is read
// through without allocating, a huge table without holding its records,
// and nesting is refused at its limit rather than followed.
func TestReadExportHoldsOneRecord(t *testing.T) {
	var before, after runtime.MemStats
	// About 40 MB of user, checked and skipped.
	skipped := &endless{prefix: head + `"user": [`, part: `{"name": "a name to skip", "n": [1.5, true, null]},`, suffix: `0]}`, n: 800_000}
	runtime.ReadMemStats(&before)
	err := Read(skipped, layout, func(string, int, *Row) error { return nil })
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// Holding it would take 40 MB; the margin is for the rest of the process.
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Fatalf("skipping the user allocated %d KiB", got>>10)
	}
	// 400,000 records: the heap, looked at as they are read, stays small.
	records := &endless{prefix: head + `"settings": [`, part: `{"key": "app_locale", "value": "de", "updated_at": "2026-11-22T08:21:03.120000Z"},`, suffix: `{}]}`, n: 400_000}
	runtime.GC()
	runtime.ReadMemStats(&before)
	var most uint64
	err = Read(records, layout, func(_ string, i int, _ *Row) error {
		if i%100_000 == 99_999 {
			runtime.GC()
			runtime.ReadMemStats(&after)
			most = max(most, after.HeapAlloc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if most > before.HeapAlloc+8<<20 {
		t.Fatalf("the heap grew from %d to %d KiB while reading records", before.HeapAlloc>>10, most>>10)
	}
	deep := &endless{prefix: head + `"user": `, part: "[", n: 10_000_000}
	if _, err := readAll(deep); err == nil || !strings.Contains(err.Error(), "nest deeper than 64 levels") {
		t.Fatalf("err = %v; want nesting refused", err)
	}
}
