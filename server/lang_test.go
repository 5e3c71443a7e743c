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

// A refusal with numbers in it (a bound of the API's schema, the store's
// own limits) is said in the client's language too, the numbers in its
// form; several refusals at once are counted in it.
func TestNumericErrorsSpeakTheClientsLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	long := strings.Repeat("a", 10001)
	for _, c := range []struct {
		name, accept, method, path string
		body                       any
		want                       string
	}{
		{"SchemaLengthGerman", "de", "POST", "/api/captures", map[string]string{"text": long}, "Das Feld text darf höchstens 10.000 Zeichen lang sein."},
		{"SchemaBoundFrench", "fr", "GET", "/api/captures?page=0", nil, "Le champ page doit valoir au moins 1."},
		{"SchemaBoundSpanish", "es", "GET", "/api/captures?limit=0", nil, "El campo limit debe ser al menos 1."},
		{"StoreLimitPortuguese", "pt-BR", "GET", "/api/captures?q=um+dois+tres+quatro+cinco+seis+sete+oito+nove+dez", nil, "O campo q pode ter no máximo 8 palavras diferentes; tem 10."},
		{"SeveralGerman", "de", "POST", "/api/captures", map[string]any{"text": long, "occurred_at": "yesterday"}, "(und 1 weiterer Fehler)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each is refused on purpose, out of the document's bounds.
			req := offDocument(h.request(c.method, c.path, c.body))
			req.Header.Set("Accept-Language", c.accept)
			got := h.send(req, h.tokenA)
			if got.Status != 422 || !strings.Contains(got.JSON(t)["message"].(string), c.want) {
				t.Errorf("%d %s, want 422 with %q", got.Status, got.Body, c.want)
			}
		})
	}
}
