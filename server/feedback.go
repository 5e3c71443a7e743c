package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

type createFeedbackInput struct {
	Body struct {
		Feedback string `json:"feedback" minLength:"1" maxLength:"2000" doc:"What you want to tell whoever runs this instance, 1 to 2000 characters."`
	}
}

func (s *Server) registerFeedback() {
	o := op(http.MethodPost, "/feedback", "create-feedback", "Account", "Send feedback",
		account.ScopeFeedbackWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusNoContent
	o.Description += " The feedback is stored on this server; nothing is sent elsewhere."
	huma.Register(s.api, o, s.createFeedback)
}

func (s *Server) createFeedback(ctx context.Context, in *createFeedbackInput) (*struct{}, error) {
	f := store.Feedback{UserID: current(ctx).User.ID, Body: in.Body.Feedback}
	if err := s.opts.Store.CreateFeedback(ctx, &f); err != nil {
		return nil, err
	}
	return nil, nil
}
