package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// HoldReaders takes every connection of the reader pool and returns a
// function that gives them back.
func (s *Store) HoldReaders(ctx context.Context) (func(), error) {
	var held []*sql.Conn
	free := func() {
		for _, c := range held {
			c.Close()
		}
	}
	for range s.read.Stats().MaxOpenConnections {
		c, err := s.read.Conn(ctx)
		if err != nil {
			free()
			return nil, err
		}
		held = append(held, c)
	}
	return free, nil
}

// HoldSearch has a search of the user's under way, and takes every slot,
// until the returned function is called.
func (s *Store) HoldSearch(ctx context.Context, userID string) (func(), error) {
	if err := s.searches.enter(ctx, userID); err != nil {
		return nil, err
	}
	taken := 1
	for len(s.searches.slots) < cap(s.searches.slots) {
		s.searches.slots <- struct{}{}
		taken++
	}
	return func() {
		for range taken - 1 {
			<-s.searches.slots
		}
		s.searches.leave(userID)
	}, nil
}

// SetSearchLimits changes how long a search may run and wait for its turn.
func (s *Store) SetSearchLimits(budget, wait time.Duration) {
	s.searches.budget, s.searches.wait = budget, wait
}

// LimitPages caps the database's size at extra pages more than it has
// now, on the writer's connection, as a nearly full disk would.
func (s *Store) LimitPages(ctx context.Context, extra int) error {
	var n int
	if err := s.write.QueryRowContext(ctx, "PRAGMA page_count").Scan(&n); err != nil {
		return err
	}
	_, err := s.write.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", n+extra))
	return err
}
