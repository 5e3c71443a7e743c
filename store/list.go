package store

import (
	"context"
)

// listQuery selects a list a page at a time.
type listQuery struct {
	columns string // the columns each row selects
	from    string // FROM ... WHERE ...: the rows of the list
	args    []any  // the arguments of from
	order   string // ORDER BY terms, ending in a unique one so that pages never overlap
	// count, when set, is a query that gives the number of rows of the list
	// without reading them, taking the same arguments as from; unset, the
	// rows are counted.
	count string
}

// page is the query that reads a page: the arguments of from, then the
// limit and the offset.
func (q listQuery) page() string {
	return `SELECT ` + q.columns + ` ` + q.from + ` ORDER BY ` + q.order + ` LIMIT ? OFFSET ?`
}

// listPage counts the rows of the list and reads page p of them, each with
// scan, within tx, so that the count and the page come from one snapshot.
func listPage[T any](ctx context.Context, tx querier, q listQuery, p Page, scan func(interface{ Scan(...any) error }) (*T, error)) ([]T, int, error) {
	count := q.count
	if count == "" {
		count = `SELECT count(*) ` + q.from
	}
	var total int
	if err := tx.QueryRowContext(ctx, count, q.args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := tx.QueryContext(ctx, q.page(), append(q.args[:len(q.args):len(q.args)], p.Limit, p.Offset())...)
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

// queryAll reads every row of query with scan.
func queryAll[T any](ctx context.Context, q querier, scan func(interface{ Scan(...any) error }) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
