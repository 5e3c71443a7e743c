package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// Detection reads the user's captures through the user's index (not the
// queue's index on status, which holds every user's captures) and their
// segments from the index segments_detection alone, without a sort and
// without a visit to the segments table for each row.
func TestDetectionFactsUseIndexes(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "plan@example.com")
	plan, err := s.DetectionPlan(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	t.Logf("plan:\n%s", all)
	for _, want := range []string{"SEARCH c USING INDEX captures_user_list (user_id=?)", "SEARCH sg USING COVERING INDEX segments_detection (capture_id=?)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the plan has no step %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "TEMP B-TREE") || strings.Contains(all, "captures_claim") {
		t.Errorf("the read sorts, or walks the queue's index:\n%s", all)
	}
}
