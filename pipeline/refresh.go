package pipeline

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/recur-journal/recur/store"
)

// A description is written when its pattern (or loop) first appears, and
// again when it no longer tells it: when the loop has grown markedly or
// come back after closing. Not more than once a day, since each is a
// model call.
const (
	// A description is written again once its loop has been seen on half
	// again as many days as when it was written: num/den times as many.
	refreshGrowthNum, refreshGrowthDen = 3, 2
	// RefreshEvery is the least time between two writings of one
	// description.
	RefreshEvery = 24 * time.Hour
	// closedAfterDays is the quiet, in days, after which a pattern has
	// closed (detect.QuietAfter): a day seen after such a gap is a return.
	closedAfterDays = 7
)

// staleUnits returns the patterns and loops, among those not in have
// already, whose description has grown out of date (see needsRefresh), as
// units to describe. Descriptions written before Recur kept their days get
// today's count, with no call.
func (p *Pipeline) staleUnits(ctx context.Context, userID string, loc *time.Location, have []describeUnit) ([]describeUnit, error) {
	bases, err := p.opts.Store.DescriptionBases(ctx, userID)
	if err != nil || len(bases) == 0 {
		return nil, err
	}
	loops, err := p.opts.Store.Loops(ctx, userID)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{} // in a unit described already
	for _, u := range have {
		for _, id := range u.ids() {
			taken[id] = true
		}
	}
	// Every described pattern is a unit of its own or in its loop's, led
	// by the loop's lead.
	units, inLoop := map[string][]string{}, map[string]bool{}
	for lead, ids := range loops {
		units[lead] = ids
		for _, id := range ids {
			inLoop[id] = true
		}
	}
	for id := range bases {
		if !inLoop[id] {
			units[id] = []string{id}
		}
	}
	now := p.opts.Store.Now()
	var out []describeUnit
	for _, lead := range slices.Sorted(maps.Keys(units)) {
		ids := units[lead]
		basis, ok := bases[lead]
		if !ok || slices.ContainsFunc(ids, func(id string) bool { return taken[id] }) {
			continue
		}
		if basis.At != nil && now.Sub(*basis.At) < RefreshEvery {
			continue
		}
		days, err := p.loopDays(ctx, userID, loc, ids...)
		if err != nil {
			return nil, err
		}
		if basis.Days == 0 {
			for _, id := range ids {
				if err := p.opts.Store.SetDescriptionDays(ctx, id, len(days)); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !needsRefresh(basis, days, loc) {
			continue
		}
		u := describeUnit{}
		for i, id := range ids {
			m, err := p.opts.Store.FindPattern(ctx, userID, id)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				u.lead = *m
			} else {
				u.others = append(u.others, *m)
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// needsRefresh reports whether a description written on basis no longer
// tells a loop seen on days (local dates): the loop has been seen on half
// again as many days since, or it came back after closing, on a day after
// the description's that followed a quiet week.
func needsRefresh(basis store.DescriptionBasis, days map[string]bool, loc *time.Location) bool {
	if len(days)*refreshGrowthDen >= basis.Days*refreshGrowthNum {
		return true
	}
	if basis.At == nil {
		return false
	}
	written := basis.At.In(loc).Format(time.DateOnly)
	var prev time.Time
	for _, d := range slices.Sorted(maps.Keys(days)) {
		t, err := time.Parse(time.DateOnly, d)
		if err != nil {
			continue
		}
		if !prev.IsZero() && d > written && t.Sub(prev) >= closedAfterDays*24*time.Hour {
			return true
		}
		prev = t
	}
	return false
}
