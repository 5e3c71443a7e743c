package store

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// resolve gives the id to write for the id s that column ref of the record
// at w holds. The record's own id is kept or given a new one, and refused
// when an earlier record of its table has it. An id it refers to must be
// that of a record of the document, read before it: it is written as that
// record's. Any other (another user's record, say) is refused.
func (r *restorer) resolve(w where, ref exportRef, s string) (string, error) {
	ids := r.ids[ref.table] // nil for a table no record refers to
	if ref.table == w.table {
		if _, ok := ids[s]; ok {
			return "", Invalid("file", "%s: id %s is the id of an earlier record of %s too.", w, quoteID(s), w.table)
		}
		id := s
		if !r.keepIDs {
			id = newID()
		}
		if ids != nil {
			ids[s] = id
		}
		return id, nil
	}
	if !ref.list {
		return lookupID(w, ref, ids, s)
	}
	if s == "" {
		return s, nil
	}
	parts := strings.Split(s, ",")
	for i, id := range parts {
		var err error
		if parts[i], err = lookupID(w, ref, ids, id); err != nil {
			return "", err
		}
	}
	if r.keepIDs {
		return s, nil
	}
	return strings.Join(parts, ","), nil
}

// lookupID gives what the record of ref.table with the id s, among ids,
// was written as.
func lookupID(w where, ref exportRef, ids map[string]string, s string) (string, error) {
	id, ok := ids[s]
	if !ok {
		return "", Invalid("file", "%s: %s %s is not the id of a record of this export's %s, listed before it: an import refers only to its own records.",
			w, ref.col, quoteID(s), ref.table)
	}
	return id, nil
}

// quoteID quotes an id of a document for a message, cut short when it is
// longer than any id Recur makes.
func quoteID(s string) string {
	const most = 40
	if len(s) <= most {
		return strconv.Quote(s)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}
