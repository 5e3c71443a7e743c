package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/pipeline/detect"
)

// Feature lock types: the parts of Recur that open only once the journal
// holds enough to count on.
const (
	lockPatterns     = "patterns"
	lockCorrelations = "correlations"
	lockFlows        = "flows"
)

// flowsRequired is how many flows open the flows lock.
const flowsRequired = 1

// FeatureLock tells whether a feature is open to the user yet, and why.
type FeatureLock struct {
	Type     string              `json:"type" enum:"patterns,correlations,flows" doc:"The feature asked about."`
	Scope    *string             `json:"scope" nullable:"true" doc:"The scope asked for (a pattern's id), or null when none was given."`
	Locked   bool                `json:"locked" doc:"Whether the feature is still closed: true until progress.current reaches progress.required."`
	Reason   string              `json:"reason" doc:"One plain sentence saying why it is locked and what to do about it, or that it is open."`
	Progress FeatureLockProgress `json:"progress" doc:"How far along the user is towards opening the feature."`
}

// FeatureLockProgress is how much of what a feature needs is there.
type FeatureLockProgress struct {
	Current  int `json:"current" minimum:"0" doc:"How much there is so far, never more than required."`
	Required int `json:"required" minimum:"1" doc:"How much the feature needs to open."`
}

type featureLockInput struct {
	Type  string `path:"type" enum:"patterns,correlations,flows" doc:"The feature: patterns, correlations or flows."`
	Scope string `query:"scope" doc:"A pattern's id, to ask about the correlations or flows of that pattern. The patterns lock takes no scope."`
}

// registerFeatureLocks lists the feature-lock route: GET
// /feature-locks/me/{type} tells the app whether to show a feature yet and
// what to tell the user while it is locked.
func (s *Server) registerFeatureLocks() {
	o := op(http.MethodGet, "/feature-locks/me/{type}", "get-feature-lock", "Patterns", "Tell whether a feature is open yet, and why",
		scopePatternsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity)
	o.Description += fmt.Sprintf(` Days are calendar days in the user's timezone setting; a capture counts unless its analysis failed.

- patterns: open once the user has written on %[1]d different days; progress is {days written, %[1]d}. Takes no scope: a scope gives 422 under scope.
- correlations: correlations compare days with a pattern against days without it and need %[2]d of each. With scope set to a pattern's id, progress is min(days with the pattern, %[2]d) + min(days written without it, %[2]d) out of %[3]d, and the lock opens at %[3]d; a day with the pattern is one on which a capture has a passage tagged with the pattern's category. Without a scope, progress is min(days written, %[3]d) out of %[3]d.
- flows: a flow shows when one passage names what set it off, how it felt and what was done. With scope set to a pattern's id, open once that pattern has a flow; without a scope, once any of the user's patterns has one. Progress is {min(flows, %[4]d), %[4]d}.

A scope that is not the id of one of the user's patterns (a rejected one still is) gives 404; an unknown type gives 422 under type.`,
		detect.MinDays, detect.MinSideDays, 2*detect.MinSideDays, flowsRequired)
	huma.Register(s.api, o, s.getFeatureLock)
}

func (s *Server) getFeatureLock(ctx context.Context, in *featureLockInput) (*struct{ Body Data[FeatureLock] }, error) {
	userID := current(ctx).User.ID
	lock := FeatureLock{Type: in.Type}
	if in.Scope != "" {
		lock.Scope = &in.Scope
	}
	switch in.Type {
	case lockPatterns:
		if in.Scope != "" {
			return nil, invalid("scope", "The patterns lock takes no scope; leave scope out.")
		}
		loc, err := s.opts.Store.Location(ctx, userID)
		if err != nil {
			return nil, err
		}
		written, err := s.opts.Store.WrittenDays(ctx, userID, loc)
		if err != nil {
			return nil, err
		}
		lock.patterns(written)
	case lockCorrelations:
		loc, err := s.opts.Store.Location(ctx, userID)
		if err != nil {
			return nil, err
		}
		if in.Scope == "" {
			written, err := s.opts.Store.WrittenDays(ctx, userID, loc)
			if err != nil {
				return nil, err
			}
			lock.correlations(written)
			break
		}
		with, written, err := s.opts.Store.PatternDays(ctx, userID, in.Scope, loc)
		if err != nil {
			return nil, err
		}
		lock.patternCorrelations(with, written-with)
	case lockFlows:
		n, err := s.opts.Store.FlowCount(ctx, userID, in.Scope)
		if err != nil {
			return nil, err
		}
		lock.flows(n, in.Scope != "")
	default: // Huma refuses other types first; this keeps a new one from slipping through.
		return nil, invalid("type", "The type must be one of: patterns, correlations, flows.")
	}
	return one(lock), nil
}

// settle sets the lock from how much there is of what it needs.
func (l *FeatureLock) settle(current, required int, reason string) {
	l.Locked = current < required
	l.Progress = FeatureLockProgress{Current: min(current, required), Required: required}
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
			with, plural(with, "day", "days"), without))
		return
	}
	var todo []string
	if with < side {
		todo = append(todo, fmt.Sprintf("%d more %s when it happens", side-with, plural(side-with, "day", "days")))
	}
	if without < side {
		todo = append(todo, fmt.Sprintf("%d more %s when it does not", side-without, plural(side-without, "day", "days")))
	}
	l.settle(current, 2*side, fmt.Sprintf("Correlations compare days with this pattern against days without it and need %d of each; you have %d %s with it and %d without, so write on %s.",
		side, with, plural(with, "day", "days"), without, strings.Join(todo, " and ")))
}

// flows: a flow needs one passage with a trigger, a feeling and a behaviour.
func (l *FeatureLock) flows(n int, scoped bool) {
	const why = "A flow shows when one passage names what set it off, how it felt and what was done"
	switch {
	case n >= flowsRequired && scoped:
		l.settle(n, flowsRequired, fmt.Sprintf("Open: this pattern has %d %s.", n, plural(n, "flow", "flows")))
	case n >= flowsRequired:
		l.settle(n, flowsRequired, fmt.Sprintf("Open: your patterns have %d %s.", n, plural(n, "flow", "flows")))
	case scoped:
		l.settle(n, flowsRequired, why+"; no passage about this pattern has all three yet, so next time it happens write what set it off, how you felt and what you did.")
	default:
		l.settle(n, flowsRequired, why+"; none of your patterns has one yet, so next time write what set it off, how you felt and what you did in one passage.")
	}
}
