package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
)

// TwoFactorSetup is what an authenticator app needs.
type TwoFactorSetup struct {
	Secret     string `json:"secret" doc:"The TOTP secret, base32, to type in by hand."`
	OTPAuthURL string `json:"otpauth_url" doc:"The otpauth:// URL the QR code holds."`
	QRCodeSVG  string `json:"qr_code_svg" doc:"The QR code as an SVG document."`
}

// RecoveryCodes are one-use codes for when the authenticator is lost.
type RecoveryCodes struct {
	TwoFactor     bool     `json:"two_factor" doc:"Whether two-factor authentication is on."`
	RecoveryCodes []string `json:"recovery_codes" doc:"Shown this once: keep them somewhere safe. Each works once."`
}

type twoFactorCodeInput struct {
	Body struct {
		Code string `json:"code" minLength:"1" maxLength:"16" doc:"The authenticator's current six digits."`
	}
}

func (s *Server) registerTwoFactor() {
	sensitive := " Needs a session confirmed within the last 15 minutes (POST /user/confirm-password or /user/confirmations): 423 otherwise."
	o := op(http.MethodPost, "/user/two-factor-authentication", "enable-two-factor", "Two-factor", "Start enabling two-factor authentication", "*",
		http.StatusUnauthorized, http.StatusLocked)
	o.Description = "Makes a new secret and answers it with its QR code. Two-factor is on only once POST /user/confirmed-two-factor-authentication proves the app has it." + sensitive
	huma.Register(s.api, o, s.enableTwoFactor)

	o = op(http.MethodPost, "/user/confirmed-two-factor-authentication", "confirm-two-factor", "Two-factor", "Turn two-factor authentication on", "*",
		http.StatusUnauthorized, http.StatusLocked, http.StatusUnprocessableEntity)
	o.Description = "Checks a code from the app against the new secret, turns two-factor on, and answers the recovery codes, shown this once." + sensitive
	huma.Register(s.api, o, s.confirmTwoFactor)

	o = op(http.MethodPost, "/user/two-factor-recovery-codes", "regenerate-recovery-codes", "Two-factor", "Replace the recovery codes", "*",
		http.StatusUnauthorized, http.StatusLocked, http.StatusUnprocessableEntity)
	o.Description = "The old codes stop working." + sensitive
	huma.Register(s.api, o, s.regenerateRecoveryCodes)

	o = op(http.MethodDelete, "/user/two-factor-authentication", "disable-two-factor", "Two-factor", "Turn two-factor authentication off", "*",
		http.StatusUnauthorized, http.StatusLocked)
	o.DefaultStatus = http.StatusNoContent
	o.Description = "Forgets the secret and the recovery codes." + sensitive
	huma.Register(s.api, o, s.disableTwoFactor)
}

func (s *Server) enableTwoFactor(ctx context.Context, _ *struct{}) (*struct{ Body Data[TwoFactorSetup] }, error) {
	setup, err := s.accounts.StartTwoFactor(ctx, current(ctx))
	if err != nil {
		return nil, err
	}
	return one(TwoFactorSetup{Secret: setup.Secret, OTPAuthURL: setup.OTPAuthURL, QRCodeSVG: setup.QRCodeSVG}), nil
}

func (s *Server) confirmTwoFactor(ctx context.Context, in *twoFactorCodeInput) (*struct{ Body Data[RecoveryCodes] }, error) {
	return recoveryCodes(s.accounts.ConfirmTwoFactor(ctx, current(ctx), in.Body.Code))
}

func (s *Server) regenerateRecoveryCodes(ctx context.Context, _ *struct{}) (*struct{ Body Data[RecoveryCodes] }, error) {
	return recoveryCodes(s.accounts.NewRecoveryCodes(ctx, current(ctx)))
}

// recoveryCodes answers new recovery codes, which mean two-factor is on.
func recoveryCodes(codes []string, err error) (*struct{ Body Data[RecoveryCodes] }, error) {
	if err != nil {
		return nil, err
	}
	return one(RecoveryCodes{TwoFactor: true, RecoveryCodes: codes}), nil
}

func (s *Server) disableTwoFactor(ctx context.Context, _ *struct{}) (*struct{}, error) {
	return nil, s.accounts.DisableTwoFactor(ctx, current(ctx))
}
