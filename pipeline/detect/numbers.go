package detect

// captureNumbers numbers the captures of a run by their place in the
// input (their ids are unique), and any other capture a segment names after
// them. Segments come in the order of their captures, as the store reads
// them, so each finds its capture at or after the last one's: looking
// 25,000 ids up in a map was a third of making the index.
type captureNumbers struct {
	list  []Capture
	next  int              // where the next segment's capture is looked for
	byID  map[string]int32 // made once a segment comes out of that order
	extra int32            // captures named by segments alone
}

// of returns the number of the capture with the id.
func (n *captureNumbers) of(id string) int32 {
	if n.byID == nil {
		for i := n.next; i < len(n.list); i++ {
			if n.list[i].ID == id {
				n.next = i + 1
				return int32(i)
			}
		}
		n.byID = make(map[string]int32, len(n.list))
		for i, c := range n.list {
			n.byID[c.ID] = int32(i)
		}
	}
	c, ok := n.byID[id]
	if !ok {
		c = int32(len(n.list)) + n.extra
		n.extra++
		n.byID[id] = c
	}
	return c
}

// count is how many captures were numbered.
func (n *captureNumbers) count() int { return len(n.list) + int(n.extra) }
