package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// Claiming the next capture reads the queue through an index that matches
// both its WHERE and its ORDER BY: no step sorts in a temporary B-tree and
// no step scans the captures table or walks a user's captures, so a claim
// does not grow with the queue or the journal.
func TestClaimUsesQueueIndex(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	plan, err := s.ClaimPlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	t.Logf("plan:\n%s", all)
	if strings.Contains(all, "TEMP B-TREE") {
		t.Errorf("the claim sorts in a temporary B-tree:\n%s", all)
	}
	for _, step := range plan {
		if strings.Contains(step, "SCAN") && !strings.Contains(step, "USING") {
			t.Errorf("the claim scans a table: %s", step)
		}
	}
	if !strings.Contains(all, "captures_claim") {
		t.Errorf("the claim does not use the index captures_claim:\n%s", all)
	}
	// Whether the user has a capture in processing is one lookup in the
	// partial index, not a walk over all the user's captures.
	if !strings.Contains(all, "captures_processing") {
		t.Errorf("the claim does not look for a user's processing capture in captures_processing:\n%s", all)
	}
}
