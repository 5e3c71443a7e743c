package store

import (
	"context"
	"database/sql"
	"time"
)

// EntryTag is a tag as an entry shows it: its type and name.
type EntryTag struct {
	Type TagType
	Name string
}

// Entry is a capture with the names of what was found in it, as the
// Markdown export writes it.
type Entry struct {
	Capture
	Tags     []EntryTag // by type, then name; each once
	Patterns []string   // names of the patterns it is part of (never rejected ones), sorted
}

// EntryCursor is where a page of EntriesAfter starts: after the capture
// with this moment and id. The zero cursor starts at the beginning.
type EntryCursor struct {
	OccurredAt time.Time
	ID         string
}

// EntriesAfter returns up to limit of the user's captures after cursor,
// oldest first, each with its tags and patterns. A caller reads the whole
// journal a page at a time, so that neither memory nor a read transaction
// grows with it.
func (s *Store) EntriesAfter(ctx context.Context, userID string, cursor EntryCursor, limit int) ([]Entry, error) {
	var list []Entry
	err := s.view(ctx, func(tx *sql.Tx) error {
		after := ""
		if !cursor.OccurredAt.IsZero() {
			after = FormatTime(cursor.OccurredAt)
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+captureColumns+` FROM captures
			WHERE user_id = ? AND (occurred_at, id) > (?, ?) ORDER BY occurred_at, id LIMIT ?`, userID, after, cursor.ID, limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			c, err := scanCapture(rows)
			if err != nil {
				rows.Close()
				return err
			}
			list = append(list, Entry{Capture: *c})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range list {
			if err := entryNames(ctx, tx, &list[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return list, err
}

// entryNames fills in the tags and patterns of e.
func entryNames(ctx context.Context, tx *sql.Tx, e *Entry) error {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT t.type, t.name FROM segments sg
		JOIN segment_tags st ON st.segment_id = sg.id JOIN tags t ON t.id = st.tag_id
		WHERE sg.capture_id = ? ORDER BY t.type, t.name`, e.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var t EntryTag
		if err := rows.Scan(&t.Type, &t.Name); err != nil {
			rows.Close()
			return err
		}
		e.Tags = append(e.Tags, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = tx.QueryContext(ctx, `SELECT DISTINCT c.name FROM segments sg
		JOIN segment_tags st ON st.segment_id = sg.id JOIN tags t ON t.id = st.tag_id
		JOIN patterns p ON p.category_id = t.category_id JOIN categories c ON c.id = p.category_id
		WHERE sg.capture_id = ? AND p.status <> 'rejected' ORDER BY c.name`, e.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		e.Patterns = append(e.Patterns, name)
	}
	return rows.Err()
}
