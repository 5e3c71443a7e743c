package store

import (
	"context"
	"database/sql"
	"slices"
)

// UnresolvedReferences lists, as table.column, the columns of the export's
// tables that hold another record's id (by a foreign key, or by a name
// ending in _id or _ids) which a restore does not check as references. The
// owner's id is written anew by every restore, and feelings are one
// vocabulary for every user.
func (s *Store) UnresolvedReferences(ctx context.Context) ([]string, error) {
	var missing []string
	err := s.view(ctx, func(tx *sql.Tx) error {
		for _, t := range exportTables {
			cols, err := queryStrings(ctx, tx, `SELECT "from" FROM pragma_foreign_key_list(?) WHERE "table" != 'feelings'
				UNION SELECT name FROM pragma_table_info(?) WHERE name LIKE '%\_id' ESCAPE '\' OR name LIKE '%\_ids' ESCAPE '\'`, t.name, t.name)
			if err != nil {
				return err
			}
			for _, col := range cols {
				checked := slices.ContainsFunc(t.ids, func(ref exportRef) bool { return ref.col == col })
				if !checked && col != "user_id" && col != "feeling_id" {
					missing = append(missing, t.name+"."+col)
				}
			}
		}
		return nil
	})
	slices.Sort(missing)
	return missing, err
}
