package store

import "database/sql"

// PreparedStatements returns the statements the store holds prepared, of
// both pools, by query.
func (s *Store) PreparedStatements() map[string]*sql.Stmt {
	all := map[string]*sql.Stmt{}
	for _, c := range []*stmtCache{s.reads, s.writes} {
		c.mu.Lock()
		for q, st := range c.stmts {
			all[q] = st
		}
		c.mu.Unlock()
	}
	return all
}
