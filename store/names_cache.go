package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
)

// namesUsers bounds the users whose names a NamesCache keeps: ten years of
// writing are some 2,000 names, well under a megabyte.
const namesUsers = 4

// namesChangesAtMost is how many changed tags a read reads on their own;
// past that (an import analysed, a restore) it reads the names whole.
const namesChangesAtMost = 500

// namesPruneAfter is how many notes of changed names a cache reads before
// it prunes them (see PruneNameChanges): some twenty entries' worth.
const namesPruneAfter = 500

// NamesCache keeps users' names between reads, so that a read of them
// (CachedTags) reads again only the tags changed since the last one
// (name_changes notes them, with their categories and use counts) instead
// of all of them. Reads of one user must not overlap.
type NamesCache struct{ recentUsers[cachedNames] }

// cachedNames is one user's names as read up to seq, in the order Tags
// gives them.
type cachedNames struct {
	seq    int64
	unread int           // notes read since the last prune
	list   []*cachedName // in order (see byUse)
	byID   map[string]*cachedName
}

// cachedName is a tag with its use count and the key its name sorts by.
type cachedName struct {
	tag  Tag
	uses int64
	key  string // the name as SQLite's NOCASE compares it
}

// CachedTags returns what Tags does, reading from the database only the
// tags changed since the user's last read through c. Every so many changes
// read, it prunes their notes (PruneNameChanges). A read that fails leaves
// nothing of the user in the cache.
func (s *Store) CachedTags(ctx context.Context, c *NamesCache, userID string, types ...TagType) ([]Tag, error) {
	cached := c.take(userID)
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		cached, err = refreshNames(ctx, tx, cached, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]Tag, 0, len(cached.list))
	categorised := 0
	for _, n := range cached.list {
		if n.tag.Category != nil {
			categorised++
		}
	}
	// The caller gets its own categories, made in one piece.
	cats := make([]Category, 0, categorised)
	for _, n := range cached.list {
		if slices.Contains(types, n.tag.Type) {
			t := n.tag
			if t.Category != nil {
				cats = append(cats, *t.Category)
				t.Category = &cats[len(cats)-1]
			}
			out = append(out, t)
		}
	}
	c.put(userID, cached, namesUsers)
	if cached.unread >= namesPruneAfter {
		return out, s.PruneNameChanges(ctx, c, userID)
	}
	return out, nil
}

// refreshNames brings the user's cached names up to the snapshot of tx,
// reading them whole when there are none, when notes they would need were
// pruned, when the notes are behind them (the database was put back) or
// when too many tags changed.
func refreshNames(ctx context.Context, tx *sql.Tx, cached *cachedNames, userID string) (*cachedNames, error) {
	var from int64
	if cached != nil {
		from = cached.seq
	}
	seq, changed, list, whole, err := nameNotes.since(ctx, tx, userID, cached != nil, from, namesChangesAtMost)
	if err != nil {
		return nil, err
	} else if whole {
		return wholeNames(ctx, tx, userID, seq)
	}
	cached.seq = seq
	if len(changed) == 0 {
		return cached, nil
	}
	cached.unread += len(changed)
	// The names are told apart by their place in memory, not by reading
	// each: ten years of names are some 1,900 places to go.
	gone := make(map[*cachedName]bool, len(changed))
	for _, id := range changed {
		if n := cached.byID[id]; n != nil {
			gone[n] = true
			delete(cached.byID, id)
		}
	}
	kept := slices.DeleteFunc(cached.list, func(n *cachedName) bool { return gone[n] })
	var read []*cachedName
	err = scanNames(ctx, tx, func(n *cachedName) { read = append(read, n); cached.byID[n.tag.ID] = n },
		namesQuery+`t.id IN (SELECT value FROM json_each(?)) AND +t.user_id = ?`, list, userID)
	if err != nil {
		return nil, err
	}
	cached.list, _ = mergeIn(kept, read, byUse)
	return cached, nil
}

// byUse orders names as Tags does: most used first, then by name as
// NOCASE compares, then by type.
func byUse(a, b *cachedName) int {
	return cmp.Or(-cmp.Compare(a.uses, b.uses), cmp.Compare(a.key, b.key), cmp.Compare(a.tag.Type, b.tag.Type))
}

// namesQuery reads tags after their use counts; a condition on the tags t
// follows.
const namesQuery = `SELECT coalesce(u.uses, 0), ` + tagColumns + ` FROM tags t LEFT JOIN categories c ON c.id = t.category_id
	LEFT JOIN tag_uses u ON u.tag_id = t.id WHERE `

// wholeNames reads all the user's tags, as of seq.
func wholeNames(ctx context.Context, tx *sql.Tx, userID string, seq int64) (*cachedNames, error) {
	cached := &cachedNames{seq: seq, byID: map[string]*cachedName{}}
	err := scanNames(ctx, tx, func(n *cachedName) { cached.list = append(cached.list, n); cached.byID[n.tag.ID] = n },
		namesQuery+`t.user_id = ?`, userID)
	slices.SortFunc(cached.list, byUse)
	return cached, err
}

// scanNames runs query (namesQuery and a condition) and gives each tag it
// reads to fn.
func scanNames(ctx context.Context, tx *sql.Tx, fn func(*cachedName), query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var uses int64
		t, err := scanTag(rows, &uses)
		if err != nil {
			return err
		}
		fn(&cachedName{tag: *t, uses: uses, key: nocase(t.Name)})
	}
	return rows.Err()
}

// nocase is s as SQLite's NOCASE collation compares it: with the ASCII
// letters in lower case and every other byte as it is.
func nocase(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// PruneNameChanges deletes the notes of the user's changed names that c
// has read, and notes up to where: any other reader that read less reads
// the user's names whole next time.
func (s *Store) PruneNameChanges(ctx context.Context, c *NamesCache, userID string) error {
	n := c.peek(userID)
	if n == nil {
		return nil
	}
	n.unread = 0
	return s.update(ctx, func(tx *sql.Tx) error { return nameNotes.prune(ctx, tx, userID, n.seq) })
}
