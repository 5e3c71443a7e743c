package server_test

import (
	"strings"
	"testing"
)

// An API error's sentences follow the client's Accept-Language where the
// catalogue knows them: the message and each field's sentences; a client
// that asks for no language, or for English, reads English.
func TestErrorsSpeakTheClientsLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, c := range []struct {
		name, accept, path, token string
		body                      any
		status                    int
		want                      string
	}{
		{"CodeGerman", "de-DE,de;q=0.9", "/api/magic-links/tokens", "", map[string]string{"email": "alice@example.com", "code": "000000"}, 422, "Der Code ist ungültig oder abgelaufen."},
		{"CodeSpanish", "es", "/api/magic-links/tokens", "", map[string]string{"email": "alice@example.com", "code": "000000"}, 422, "El código no es válido o ha caducado."},
		{"CodeEnglish", "", "/api/magic-links/tokens", "", map[string]string{"email": "alice@example.com", "code": "000000"}, 422, "The code is invalid or has expired."},
		{"UnauthenticatedFrench", "fr", "/api/captures", "", map[string]string{"text": "x"}, 401, "Non connecté."},
		{"UnauthenticatedEnglish", "en-GB", "/api/captures", "", map[string]string{"text": "x"}, 401, "Unauthenticated."},
		{"FieldPortuguese", "pt-BR", "/api/captures", h.tokenA, map[string]string{"text": "   "}, 422, "Escreva algo no campo de texto."},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := h.request("POST", c.path, c.body)
			if c.accept != "" {
				req.Header.Set("Accept-Language", c.accept)
			}
			got := h.send(req, c.token)
			if got.Status != c.status || !strings.Contains(string(got.Body), c.want) {
				t.Errorf("%d %s, want %d with %q", got.Status, got.Body, c.status, c.want)
			}
			if m := got.JSON(t)["message"]; c.status == 422 && !strings.Contains(m.(string), c.want) {
				t.Errorf("message %q lacks %q", m, c.want)
			}
		})
	}
}
