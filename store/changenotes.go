package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"sync"
)

// recentUsers keeps a value per user for the few users read last, for the
// caches that read again only what changed since their last read.
type recentUsers[T any] struct {
	mu    sync.Mutex
	users map[string]*T
	order []string // users, least recently read first
}

// mergeIn puts the few values read in among the many kept (both in the
// order cmp gives, read sorted here), each where a binary search puts it,
// and returns them with the place of the first read one (len(kept) when
// none was read): what comes before it is kept as it was.
func mergeIn[T any](kept, read []T, cmp func(a, b T) int) ([]T, int) {
	slices.SortFunc(read, cmp)
	merged := make([]T, 0, len(kept)+len(read))
	at, first := 0, len(kept)
	for j, v := range read {
		i, _ := slices.BinarySearchFunc(kept, v, cmp)
		if j == 0 {
			first = i
		}
		merged = append(append(merged, kept[at:i]...), v)
		at = i
	}
	return append(merged, kept[at:]...), first
}

// take removes the user's value and returns it, or nil.
func (c *recentUsers[T]) take(userID string) *T {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.users[userID]
	delete(c.users, userID)
	if i := slices.Index(c.order, userID); i >= 0 {
		c.order = slices.Delete(c.order, i, i+1)
	}
	return v
}

// peek returns the user's value, leaving it in place, or nil.
func (c *recentUsers[T]) peek(userID string) *T {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.users[userID]
}

// put keeps the user's value as the most recently read, letting go of the
// least recently read beyond most users.
func (c *recentUsers[T]) put(userID string, v *T, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users == nil {
		c.users = map[string]*T{}
	}
	c.users[userID] = v
	c.order = append(c.order, userID)
	for len(c.order) > most {
		delete(c.users, c.order[0])
		c.order = c.order[1:]
	}
}

// changeNotes names a table that triggers note users' changes in (seq, the
// user and the id of what changed, in column id) and the table that says
// up to where its notes were pruned for each user.
type changeNotes struct{ table, pruned, id string }

var (
	detectionNotes = changeNotes{table: "detection_changes", pruned: "detection_pruned", id: "capture_id"}
	nameNotes      = changeNotes{table: "name_changes", pruned: "name_pruned", id: "tag_id"}
)

// since returns, as of tx, the last seq given (even when its note was
// pruned since) and the distinct ids noted for the user after from, as a
// list and as a JSON array. whole reports that a reader that read up to
// from must read the user's records whole instead: when it read nothing
// yet (read false), when notes it would need were pruned, when the notes
// are behind it (the database was put back) or when more than atMost
// changed.
func (n changeNotes) since(ctx context.Context, tx *sql.Tx, userID string, read bool, from int64, atMost int) (seq int64, ids []string, list string, whole bool, err error) {
	var pruned int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0)`, n.table).Scan(&seq); err != nil {
		return 0, nil, "", false, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT seq FROM `+n.pruned+` WHERE user_id = ?), 0)`, userID).Scan(&pruned); err != nil {
		return 0, nil, "", false, err
	}
	if !read || from < pruned || seq < from { // the last: another database now
		return seq, nil, "", true, nil
	}
	err = tx.QueryRowContext(ctx, `SELECT json_group_array(`+n.id+`) FROM (SELECT DISTINCT `+n.id+` FROM `+n.table+`
		WHERE user_id = ? AND seq > ? LIMIT ?)`, userID, from, atMost+1).Scan(&list)
	if err != nil {
		return 0, nil, "", false, err
	}
	if err := json.Unmarshal([]byte(list), &ids); err != nil {
		return 0, nil, "", false, err
	}
	return seq, ids, list, len(ids) > atMost, nil
}

// prune deletes the user's notes up to seq, and notes up to where: any
// other reader that read less reads the user's records whole next time.
func (n changeNotes) prune(ctx context.Context, tx *sql.Tx, userID string, seq int64) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM `+n.table+` WHERE user_id = ? AND seq <= ?`, userID, seq)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO `+n.pruned+` (user_id, seq) VALUES (?, ?)
		ON CONFLICT (user_id) DO UPDATE SET seq = max(seq, excluded.seq)`, userID, seq)
	return err
}
