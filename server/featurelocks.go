package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/pipeline/detect"
)

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
		account.ScopePatternsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity)
	o.Description += fmt.Sprintf(` Days are calendar days in the user's timezone setting; a capture counts unless its analysis failed.

- patterns: open once the user has written on %[1]d different days; progress is {days written, %[1]d}. Takes no scope: a scope gives 422 under scope.
- correlations: correlations compare days with a pattern against days without it and need %[2]d of each. With scope set to a pattern's id, progress is min(days with the pattern, %[2]d) + min(days written without it, %[2]d) out of %[3]d, and the lock opens at %[3]d; a day with the pattern is one on which a capture has a passage tagged with the pattern's category. Without a scope, progress is min(days written, %[3]d) out of %[3]d.
- flows: a flow shows when one passage names what set it off, how it felt and what was done. With scope set to a pattern's id, open once that pattern has a flow; without a scope, once any of the user's patterns has one. Progress is {min(flows, %[4]d), %[4]d}.

A scope that is not the id of one of the user's patterns (a rejected one still is) gives 404; an unknown type gives 422 under type.`,
		detect.MinDays, detect.MinSideDays, 2*detect.MinSideDays, journal.FlowsRequired)
	huma.Register(s.api, o, s.getFeatureLock)
}

func (s *Server) getFeatureLock(ctx context.Context, in *featureLockInput) (*struct{ Body Data[FeatureLock] }, error) {
	l, err := journal.FindFeatureLock(ctx, s.opts.Store, current(ctx).User.ID, in.Type, in.Scope)
	if err != nil {
		return nil, err
	}
	lock := FeatureLock{Type: l.Type, Locked: l.Locked, Reason: l.Reason,
		Progress: FeatureLockProgress{Current: l.Current, Required: l.Required}}
	if l.Scope != "" {
		lock.Scope = &l.Scope
	}
	return one(lock), nil
}
