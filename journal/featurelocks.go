package journal

import (
	"context"
	"fmt"
	"strings"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
)

// Feature lock types: the parts of Recur that open only once the journal
// holds enough to count on.
const (
	LockPatterns     = "patterns"
	LockCorrelations = "correlations"
	LockFlows        = "flows"
)

// LockTypes lists the feature lock types.
var LockTypes = []string{LockPatterns, LockCorrelations, LockFlows}

// FlowsRequired is how many flows open the flows lock.
const FlowsRequired = 1

// FeatureLock tells whether a feature is open to the user yet, why, and how
// far along they are: Current never exceeds Required, and the feature is
// locked while Current is below it.
type FeatureLock struct {
	Type     string
	Scope    string // a pattern's id, or empty
	Locked   bool
	Reason   string // one plain sentence: why it is locked and what to do, or that it is open
	Current  int
	Required int
}

// FindFeatureLock tells whether the feature typ is open to the user. scope,
// when set, is the id of one of the user's patterns, for the correlations
// or flows of that pattern. It returns EINVALID naming "type" for an
// unknown type or "scope" for a scope on the patterns lock, and ENOTFOUND
// for a scope that is not one of the user's patterns.
func FindFeatureLock(ctx context.Context, st *store.Store, userID, typ, scope string) (*FeatureLock, error) {
	lock := &FeatureLock{Type: typ, Scope: scope}
	switch typ {
	case LockPatterns:
		if scope != "" {
			return nil, store.Invalid("scope", "The patterns lock takes no scope; leave scope out.")
		}
		written, err := writtenDays(ctx, st, userID)
		if err != nil {
			return nil, err
		}
		lock.patterns(written)
	case LockCorrelations:
		if scope == "" {
			written, err := writtenDays(ctx, st, userID)
			if err != nil {
				return nil, err
			}
			lock.correlations(written)
			break
		}
		loc, err := st.Location(ctx, userID)
		if err != nil {
			return nil, err
		}
		with, written, err := st.PatternDays(ctx, userID, scope, loc)
		if err != nil {
			return nil, err
		}
		lock.patternCorrelations(with, written-with)
	case LockFlows:
		n, err := st.FlowCount(ctx, userID, scope)
		if err != nil {
			return nil, err
		}
		lock.flows(n, scope != "")
	default:
		return nil, store.Invalid("type", "The type must be one of: %s.", strings.Join(LockTypes, ", "))
	}
	return lock, nil
}

// writtenDays counts the days the user wrote on, in their timezone.
func writtenDays(ctx context.Context, st *store.Store, userID string) (int, error) {
	loc, err := st.Location(ctx, userID)
	if err != nil {
		return 0, err
	}
	return st.WrittenDays(ctx, userID, loc)
}

// settle sets the lock from how much there is of what it needs.
func (l *FeatureLock) settle(current, required int, reason string) {
	l.Locked = current < required
	l.Current, l.Required = min(current, required), required
	l.Reason = reason
}

// patterns: patterns need writing on detect.MinDays different days.
func (l *FeatureLock) patterns(written int) {
	need := detect.MinDays
	if written < need {
		l.settle(written, need, fmt.Sprintf("Patterns show once you have written on %d different days; you have written on %d, so write on %d more.",
			need, written, need-written))
		return
	}
	l.settle(written, need, fmt.Sprintf("Open: you have written on %d different days.", written))
}

// correlations without a scope: no pattern can be compared before there
// are enough days for both sides.
func (l *FeatureLock) correlations(written int) {
	side, need := detect.MinSideDays, 2*detect.MinSideDays
	if written < need {
		l.settle(written, need, fmt.Sprintf("Correlations compare days with a pattern against days without it and need %d of each, so %d days of writing; you have written on %d, so write on %d more.",
			side, need, written, need-written))
		return
	}
	l.settle(written, need, fmt.Sprintf("Open: you have written on %d different days, enough for correlations of any pattern with %d days with it and %d without.",
		written, side, side))
}

// patternCorrelations: one pattern's correlations need detect.MinSideDays
// days with it and as many without it.
func (l *FeatureLock) patternCorrelations(with, without int) {
	side := detect.MinSideDays
	current := min(with, side) + min(without, side)
	if current >= 2*side {
		l.settle(current, 2*side, fmt.Sprintf("Open: there are %d %s with this pattern and %d without it to compare.",
			with, days(with), without))
		return
	}
	var todo []string
	if with < side {
		todo = append(todo, fmt.Sprintf("%d more %s when it happens", side-with, days(side-with)))
	}
	if without < side {
		todo = append(todo, fmt.Sprintf("%d more %s when it does not", side-without, days(side-without)))
	}
	l.settle(current, 2*side, fmt.Sprintf("Correlations compare days with this pattern against days without it and need %d of each; you have %d %s with it and %d without, so write on %s.",
		side, with, days(with), without, strings.Join(todo, " and ")))
}

// flows: a flow needs one passage with a trigger, a feeling and a behaviour.
func (l *FeatureLock) flows(n int, scoped bool) {
	const why = "A flow shows when one passage names what set it off, how it felt and what was done"
	flows := "flows"
	if n == 1 {
		flows = "flow"
	}
	switch {
	case n >= FlowsRequired && scoped:
		l.settle(n, FlowsRequired, fmt.Sprintf("Open: this pattern has %d %s.", n, flows))
	case n >= FlowsRequired:
		l.settle(n, FlowsRequired, fmt.Sprintf("Open: your patterns have %d %s.", n, flows))
	case scoped:
		l.settle(n, FlowsRequired, why+"; no passage about this pattern has all three yet, so next time it happens write what set it off, how you felt and what you did.")
	default:
		l.settle(n, FlowsRequired, why+"; none of your patterns has one yet, so next time write what set it off, how you felt and what you did in one passage.")
	}
}

// days is the noun for n days.
func days(n int) string {
	if n == 1 {
		return "day"
	}
	return "days"
}
