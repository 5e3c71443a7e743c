package detect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestLinksHashIsTheSumOfTheWholeText: a pattern's links are summed in
// pieces, and the sum is still the one of its whole text, so the sums
// stored before stay valid and an unchanged pattern is not written again.
func TestLinksHashIsTheSumOfTheWholeText(t *testing.T) {
	p := Pattern{Correlations: []Correlation{{TagID: "tag-1", Amount: 12, Impact: "high"}, {TagID: "tag-2", Amount: 3, Impact: "low"}}}
	var text strings.Builder
	for _, c := range p.Correlations {
		fmt.Fprintf(&text, "c\x00%s\x00%d\x00%s\n", c.TagID, c.Amount, c.Impact)
	}
	for i := range 3000 { // many times hashPiece
		f := Flow{SegmentID: fmt.Sprintf("segment-%05d", i), Trigger: "a late train", Feeling: "anxious", Behaviour: "skipped lunch"}
		p.Flows = append(p.Flows, f)
		fmt.Fprintf(&text, "f\x00%s\x00%s\x00%s\x00%s\n", f.SegmentID, f.Trigger, f.Feeling, f.Behaviour)
	}
	sum := sha256.Sum256([]byte(text.String()))
	got, buf := linksHash(p, nil)
	if want := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("links hash %s, want the sum of the whole text %s", got, want)
	}
	if again, _ := linksHash(p, buf); again != got {
		t.Fatalf("links hash with the buffer given back %s, want %s", again, got)
	}
}
