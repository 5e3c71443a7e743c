package cli

import (
	"crypto/x509"
	"strings"
	"sync"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// installFallbackRoots gives crypto/x509 the CA roots carried in the binary,
// used where the system has none (a scratch image). Parsing them takes a few
// milliseconds and half a megabyte, so it happens once, and only for a
// configuration that talks TLS (see needsRoots), not on every start.
var installFallbackRoots = sync.OnceFunc(func() {
	pool := x509.NewCertPool()
	for c := range bundle.Roots() {
		cert, err := x509.ParseCertificate(c.Certificate)
		if err != nil {
			panic(err) // the bundle is part of the binary
		}
		if c.Constraint == nil {
			pool.AddCert(cert)
		} else {
			pool.AddCertWithConstraint(cert, c.Constraint)
		}
	}
	x509.SetFallbackRoots(pool)
})

// needsRoots reports whether cfg names a peer reached over TLS: an SMTP
// server (which may use STARTTLS whatever the setting) or Ollama at https.
func needsRoots(cfg Config) bool {
	return cfg.Mail.SMTPHost != "" || strings.HasPrefix(strings.ToLower(cfg.Model.URL), "https:")
}
