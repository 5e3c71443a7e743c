package store

import "context"

// AllPatterns returns every listed pattern of the user in the state (nil
// for open and closed), read a thousand at a time.
func (s *Store) AllPatterns(ctx context.Context, userID string, state *string) ([]Pattern, error) {
	var out []Pattern
	for page := 1; ; page++ {
		list, total, err := s.FindPatterns(ctx, userID, PatternFilter{State: state, Page: Page{Page: page, Limit: 1000}})
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
		if len(list) == 0 || len(out) >= total {
			return out, nil
		}
	}
}
