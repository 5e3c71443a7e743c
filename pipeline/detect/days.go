package detect

import (
	"math/bits"
	"time"
)

// day numbers a local calendar day, so days compare and subtract as ints.
func day(t time.Time, loc *time.Location) int {
	y, m, d := t.In(loc).Date()
	return int(time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Unix() / 86400)
}

// days is a set of days, one bit a day from the first day of the journal:
// ten years fit in 58 words, and intersections are a few instructions.
type days []uint64

func newDays(span int) days { return make(days, span/64+1) }

func (d days) add(i int)      { d[i/64] |= 1 << (i % 64) }
func (d days) has(i int) bool { return i >= 0 && i/64 < len(d) && d[i/64]&(1<<(i%64)) != 0 }

// count is the number of days in the set.
func (d days) count() int {
	n := 0
	for _, w := range d {
		n += bits.OnesCount64(w)
	}
	return n
}

// common is the number of days in both sets.
func (d days) common(o days) int {
	n := 0
	for i, w := range d {
		n += bits.OnesCount64(w & o[i])
	}
	return n
}
