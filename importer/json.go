package importer

import (
	"bytes"
	"encoding/json"
	"errors"
)

// recurExportFormat is the "format" of a Recur export document.
const recurExportFormat = "recur-export"

// classify tells which export a JSON document is by its keys: Recur (a
// "format" of "recur-export"), Day One ("metadata" and "entries", or entries
// with "creationDate"), jrnl (entries with "date", "title" or "body", or
// top-level "tags" beside "entries"), or "" for JSON of something else.
func classify(source string, data []byte) (Format, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return "", jsonError(source, data, err)
	}
	var format string
	if json.Unmarshal(top["format"], &format) == nil && format == recurExportFormat {
		return Recur, nil
	}
	raw, ok := top["entries"]
	if !ok {
		return "", nil
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return "", nil
	}
	_, metadata := top["metadata"]
	_, tags := top["tags"]
	// jrnl writes a "uuid" too for journals it keeps in Day One's format,
	// so the keys only one of them writes decide first.
	for _, e := range entries {
		switch {
		case has(e, "creationDate"):
			return DayOne, nil
		case has(e, "date", "title", "body"):
			return JRNL, nil
		case has(e, "text", "richText", "modifiedDate", "uuid"):
			return DayOne, nil
		}
	}
	switch {
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

// jsonError turns a decoding error into an *Error that says where in data
// it went wrong.
func jsonError(source string, data []byte, err error) *Error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return errorf(source, "not valid JSON near line %d, column %d (%v); export it again and upload the file unchanged.", line, col, syntax)
	case errors.As(err, &typ):
		line, _ := position(data, typ.Offset)
		return errorf(source, "a JSON %s near line %d stands where something else belongs; export it again and upload the file unchanged.", typ.Value, line)
	}
	return errorf(source, "not valid JSON (%v); export it again and upload the file unchanged.", err)
}

// position turns a byte offset into data into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// decodeEntries decodes the "entries" array of a Day One or jrnl export and
// each entry into a T, naming the entry that does not fit.
func decodeEntries[T any](source string, data []byte) ([]T, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var doc struct {
		Entries []json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonError(source, data, err)
	}
	out := make([]T, len(doc.Entries))
	for i, raw := range doc.Entries {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) && typ.Field != "" {
				return nil, errorf(entrySource(source, i), "its %q is a JSON %s where %s belongs; export the journal again and upload the file unchanged.", typ.Field, typ.Value, typ.Type)
			}
			return nil, errorf(entrySource(source, i), "not a journal entry (%v); export the journal again and upload the file unchanged.", err)
		}
	}
	return out, nil
}
