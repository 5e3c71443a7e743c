package store

import (
	"context"
	"database/sql"
)

// listQuery selects a list a page at a time.
type listQuery struct {
	columns string // the columns each row selects
	from    string // FROM ... WHERE ...: the rows of the list, for the count and the page alike
	args    []any  // the arguments of from
	order   string // ORDER BY terms, ending in a unique one so that pages never overlap
}

// listPage counts the rows of the list and reads page p of them, each with
// scan, within tx, so that the count and the page come from one snapshot.
func listPage[T any](ctx context.Context, tx *sql.Tx, q listQuery, p Page, scan func(interface{ Scan(...any) error }) (*T, error)) ([]T, int, error) {
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) `+q.from, q.args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+q.columns+` `+q.from+` ORDER BY `+q.order+` LIMIT ? OFFSET ?`,
		append(q.args[:len(q.args):len(q.args)], p.Limit, p.Offset())...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var list []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, 0, err
		}
		list = append(list, *v)
	}
	return list, total, rows.Err()
}
