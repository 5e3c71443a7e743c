package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"

	"github.com/boombuler/barcode/qr"
	"github.com/danielgtaylor/huma/v2"
	"github.com/pquerna/otp/totp"
)

// recoveryCodes is how many recovery codes a user gets.
const recoveryCodes = 8

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
	if !s.confirmed(ctx) {
		return nil, errConfirmationRequired
	}
	user := current(ctx).User
	key, err := totp.Generate(totp.GenerateOpts{Issuer: "Recur", AccountName: user.Email})
	if err != nil {
		return nil, err
	}
	sealed, err := s.keys.seal(key.Secret())
	if err != nil {
		return nil, err
	}
	if err := s.opts.Store.SetTwoFactorSecret(ctx, user.ID, sealed); err != nil {
		return nil, err
	}
	svg, err := qrSVG(key.URL())
	if err != nil {
		return nil, err
	}
	return one(TwoFactorSetup{Secret: key.Secret(), OTPAuthURL: key.URL(), QRCodeSVG: svg}), nil
}

func (s *Server) confirmTwoFactor(ctx context.Context, in *twoFactorCodeInput) (*struct{ Body Data[RecoveryCodes] }, error) {
	if !s.confirmed(ctx) {
		return nil, errConfirmationRequired
	}
	user := current(ctx).User
	if user.TwoFactorSecret == "" {
		return nil, invalid("code", "Start with POST /user/two-factor-authentication to get a secret first.")
	}
	// The code is used up: it cannot sign in a second time.
	if err := s.checkTOTP(ctx, user, in.Body.Code); err != nil {
		return nil, err
	}
	codes, hashes := s.newRecoveryCodes()
	if err := s.opts.Store.ConfirmTwoFactor(ctx, user.ID, hashes); err != nil {
		return nil, err
	}
	return one(RecoveryCodes{TwoFactor: true, RecoveryCodes: codes}), nil
}

func (s *Server) regenerateRecoveryCodes(ctx context.Context, _ *struct{}) (*struct{ Body Data[RecoveryCodes] }, error) {
	if !s.confirmed(ctx) {
		return nil, errConfirmationRequired
	}
	user := current(ctx).User
	if !user.TwoFactor() {
		return nil, invalid("two_factor", "Two-factor authentication is off; there are no recovery codes to replace.")
	}
	codes, hashes := s.newRecoveryCodes()
	if err := s.opts.Store.ReplaceRecoveryCodes(ctx, user.ID, hashes); err != nil {
		return nil, err
	}
	return one(RecoveryCodes{TwoFactor: true, RecoveryCodes: codes}), nil
}

func (s *Server) disableTwoFactor(ctx context.Context, _ *struct{}) (*struct{}, error) {
	if !s.confirmed(ctx) {
		return nil, errConfirmationRequired
	}
	return nil, s.opts.Store.DisableTwoFactor(ctx, current(ctx).User.ID)
}

// newRecoveryCodes makes codes like "k7xq-m2rp" and their hashes.
func (s *Server) newRecoveryCodes() (codes, hashes []string) {
	for range recoveryCodes {
		t := strings.ToLower(rand.Text()[:8])
		code := t[:4] + "-" + t[4:]
		codes = append(codes, code)
		hashes = append(hashes, s.keys.mac("recovery", normaliseRecovery(code)))
	}
	return codes, hashes
}

// normaliseRecovery forgives case, spaces and the dash in a typed recovery code.
func normaliseRecovery(code string) string {
	return strings.ToLower(strings.NewReplacer("-", "", " ", "").Replace(code))
}

// qrSVG draws text as a QR code in SVG, one square a module, with the quiet zone.
func qrSVG(text string) (string, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return "", err
	}
	n := code.Bounds().Dx()
	const quiet = 4
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n+2*quiet, n+2*quiet)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/><path fill="#000" d="`)
	for y := range n {
		for x := range n {
			if r, _, _, _ := code.At(x, y).RGBA(); r == 0 {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}
