package store

import "context"

// WriteNames runs a write straight on the tags and categories, as a path
// the store does not have yet (a rename, a merge) would.
func (s *Store) WriteNames(ctx context.Context, query string, args ...any) error {
	_, err := s.write.ExecContext(ctx, query, args...)
	return err
}
