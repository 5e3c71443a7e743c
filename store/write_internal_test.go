package store

import "context"

// HoldWriter begins a write transaction and keeps it open, so that every
// other write waits for the only write connection until release is called.
func (s *Store) HoldWriter(ctx context.Context) (release func(), err error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return func() { tx.Rollback() }, nil
}

// CreatesWaiting reports how many entries wait for their turn to be
// committed, whether a caller is committing, and whether Close began.
func (s *Store) CreatesWaiting() (waiting int, leading, closed bool) {
	g := &s.creates
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue), g.leading, g.closed
}
