package pipeline

import (
	"context"
	"sync"

	"github.com/recur-journal/recur/store"
)

// nameVectorUsers bounds the users whose name embeddings are kept in
// memory: some 2,000 names of ten years take about 6 MB with a 768-wide
// embedding model.
const nameVectorUsers = 4

// nameVectors keeps the embeddings of users' names between runs, so that
// the extract step's shortlist reads them from the database once rather
// than all of them for every entry. The pipeline writes every embedding it
// makes here and to the store alike; a name embedded elsewhere (by another
// process) is missing here and embedded again, as one never embedded is.
type nameVectors struct {
	mu    sync.Mutex
	users map[string]map[string][]float32 // user id -> tag id -> embedding
	order []string                        // users, least recently used first
}

// of returns the user's embeddings by tag id, read from the store the first
// time. Runs of one user are serialised, so the map is the run's to read
// and add to.
func (n *nameVectors) of(ctx context.Context, s *store.Store, userID string) (map[string][]float32, error) {
	n.mu.Lock()
	vecs, ok := n.users[userID]
	n.mu.Unlock()
	if ok {
		n.keep(userID, vecs)
		return vecs, nil
	}
	vecs, err := s.TagEmbeddings(ctx, userID, nameTypes...)
	if err != nil {
		return nil, err
	}
	n.keep(userID, vecs)
	return vecs, nil
}

// keep holds the user's embeddings as the most recently used, letting go of
// the least recently used user's beyond nameVectorUsers.
func (n *nameVectors) keep(userID string, vecs map[string][]float32) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.users == nil {
		n.users = map[string]map[string][]float32{}
	}
	n.users[userID] = vecs
	for i, id := range n.order {
		if id == userID {
			n.order = append(n.order[:i], n.order[i+1:]...)
			break
		}
	}
	n.order = append(n.order, userID)
	for len(n.order) > nameVectorUsers {
		delete(n.users, n.order[0])
		n.order = n.order[1:]
	}
}
