package account

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/boombuler/barcode/qr"
	"github.com/pquerna/otp/totp"
)

// recoveryCodes is how many recovery codes a user gets.
const recoveryCodes = 8

// TwoFactorSetup is what an authenticator app needs.
type TwoFactorSetup struct {
	Secret     string // the TOTP secret, base32, to type in by hand
	OTPAuthURL string // the otpauth:// URL the QR code holds
	QRCodeSVG  string // the QR code as an SVG document
}

// StartTwoFactor makes a new secret for c's user and answers it with its
// QR code; two-factor is on only once ConfirmTwoFactor has a code from the
// app. Like every two-factor change it needs the session confirmed (423).
func (a *Accounts) StartTwoFactor(ctx context.Context, c *Caller) (TwoFactorSetup, error) {
	if !a.Confirmed(ctx, c) {
		return TwoFactorSetup{}, errConfirmationRequired
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: "Recur", AccountName: c.User.Email})
	if err != nil {
		return TwoFactorSetup{}, err
	}
	sealed, err := a.keys.seal(key.Secret())
	if err != nil {
		return TwoFactorSetup{}, err
	}
	if err := a.opts.Store.SetTwoFactorSecret(ctx, c.User.ID, sealed); err != nil {
		return TwoFactorSetup{}, err
	}
	svg, err := qrSVG(key.URL())
	if err != nil {
		return TwoFactorSetup{}, err
	}
	return TwoFactorSetup{Secret: key.Secret(), OTPAuthURL: key.URL(), QRCodeSVG: svg}, nil
}

// ConfirmTwoFactor checks a code from the app against the new secret,
// turns two-factor on and answers the recovery codes, shown this once.
func (a *Accounts) ConfirmTwoFactor(ctx context.Context, c *Caller, code string) ([]string, error) {
	if !a.Confirmed(ctx, c) {
		return nil, errConfirmationRequired
	}
	if c.User.TwoFactorSecret == "" {
		return nil, invalid("code", "Start with POST /user/two-factor-authentication to get a secret first.")
	}
	// The code is used up: it cannot sign in a second time.
	if err := a.checkTOTP(ctx, c.User, code); err != nil {
		return nil, err
	}
	codes, hashes := a.newRecoveryCodes()
	if err := a.opts.Store.ConfirmTwoFactor(ctx, c.User.ID, hashes); err != nil {
		return nil, err
	}
	return codes, nil
}

// NewRecoveryCodes replaces the recovery codes; the old ones stop working.
func (a *Accounts) NewRecoveryCodes(ctx context.Context, c *Caller) ([]string, error) {
	if !a.Confirmed(ctx, c) {
		return nil, errConfirmationRequired
	}
	if !c.User.TwoFactor() {
		return nil, invalid("two_factor", "Two-factor authentication is off; there are no recovery codes to replace.")
	}
	codes, hashes := a.newRecoveryCodes()
	if err := a.opts.Store.ReplaceRecoveryCodes(ctx, c.User.ID, hashes); err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTwoFactor forgets the secret and the recovery codes.
func (a *Accounts) DisableTwoFactor(ctx context.Context, c *Caller) error {
	if !a.Confirmed(ctx, c) {
		return errConfirmationRequired
	}
	return a.opts.Store.DisableTwoFactor(ctx, c.User.ID)
}

// newRecoveryCodes makes codes like "k7xq-m2rp" and their hashes.
func (a *Accounts) newRecoveryCodes() (codes, hashes []string) {
	for range recoveryCodes {
		t := strings.ToLower(rand.Text()[:8])
		code := t[:4] + "-" + t[4:]
		codes = append(codes, code)
		hashes = append(hashes, a.keys.mac("recovery", normaliseRecovery(code)))
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
