package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
)

type verifyInput struct {
	UserUUID  string `query:"user_uuid" required:"true" format:"uuid" doc:"The user's id, as the mailed link gives it."`
	Expires   int64  `query:"expires" required:"true" doc:"The link's expiry, Unix seconds, as the mailed link gives it."`
	Signature string `query:"signature" required:"true" minLength:"1" doc:"The link's signature, as the mailed link gives it."`
}

func (s *Server) registerVerification() {
	o := op(http.MethodPost, "/email/verification-notification", "send-verification", "Sign-in", "Mail a link that verifies the address", "*",
		http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusServiceUnavailable)
	o.Description = "Answers 200 with the string verification-link-sent, or 204 when the address is verified already. The link works for an hour. Signing in by mail also verifies the address. Without [server] base_url no link can be mailed, and the answer is 503."
	o.Responses = map[string]*huma.Response{"204": {Description: "The address is verified already."}}
	huma.Register(s.api, o, s.sendVerification)
	s.api.OpenAPI().Paths["/email/verification-notification"].Post.Responses["503"].Description =
		"No link can be mailed: [server] base_url is not set and the server listens beyond loopback."

	o = op(http.MethodGet, "/email/verify", "verify-email", "Sign-in", "Verify the address by its mailed link", "", http.StatusForbidden)
	o.Description = "Open: the signed link is the proof. A missing or malformed parameter answers 422; a link not made here, or expired, 403."
	huma.Register(s.api, o, s.verifyEmail)
}

func (s *Server) sendVerification(ctx context.Context, _ *struct{}) (*struct {
	Status int
	Body   *string
}, error) {
	sent, err := s.accounts.SendVerificationMail(ctx, current(ctx))
	if err != nil {
		return nil, err
	}
	if !sent {
		return &struct {
			Status int
			Body   *string
		}{Status: http.StatusNoContent}, nil
	}
	body := "verification-link-sent"
	return &struct {
		Status int
		Body   *string
	}{Status: http.StatusOK, Body: &body}, nil
}

func (s *Server) verifyEmail(ctx context.Context, in *verifyInput) (*struct{ Body Message }, error) {
	if err := s.accounts.VerifyEmail(ctx, in.UserUUID, in.Expires, in.Signature); err != nil {
		return nil, err
	}
	return &struct{ Body Message }{Message{"Your address is verified."}}, nil
}
