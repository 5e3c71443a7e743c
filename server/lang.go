package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/recur-journal/recur/internal/i18n"
)

// maxErrorBody bounds the error body localizeErrors reads: error bodies are
// a sentence or a few; anything longer passes as it is.
const maxErrorBody = 64 << 10

// localizeErrors says the sentences of the API's error answers (message,
// and each field's sentences in errors) in the language the client's
// Accept-Language asks for, where the catalogue knows them; a sentence it
// does not know stays English, and so does everything for a client that
// asks for English or for nothing.
func localizeErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		loc := i18n.FromAcceptLanguage(r.Header.Get("Accept-Language"))
		if loc.Lang == i18n.Default {
			next.ServeHTTP(w, r)
			return
		}
		ew := &errorWriter{ResponseWriter: w, loc: loc}
		next.ServeHTTP(ew, r)
		ew.finish()
	})
}

// errorWriter holds back a JSON error answer until it is complete, to
// translate it; every other answer passes straight through.
type errorWriter struct {
	http.ResponseWriter
	loc     *i18n.Locale
	status  int
	holding bool
	body    bytes.Buffer
}

func (w *errorWriter) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	if status >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.holding = true
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *errorWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.holding {
		return w.ResponseWriter.Write(b)
	}
	if w.body.Len()+len(b) > maxErrorBody {
		w.release(w.body.Bytes())
		return w.ResponseWriter.Write(b)
	}
	return w.body.Write(b)
}

// Flush passes on, for event streams (never held back).
func (w *errorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.holding {
		f.Flush()
	}
}

func (w *errorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// release sends the held status and body as they are.
func (w *errorWriter) release(body []byte) {
	w.holding = false
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.Write(body)
}

// moreErrors is the count validationError puts after the first sentence.
var moreErrors = regexp.MustCompile(`^(.*) \(and (\d+) more errors?\)$`)

// sentenceAndMore says a message in loc's language: its sentence, and the
// count of the other refusals after it.
func sentenceAndMore(loc *i18n.Locale, msg string) string {
	m := moreErrors.FindStringSubmatch(msg)
	if m == nil {
		return loc.Sentence(msg)
	}
	n, _ := strconv.Atoi(m[2])
	return loc.Sentence(m[1]) + " " + loc.T("(and %d more errors)", n)
}

// finish translates and sends a held error answer.
func (w *errorWriter) finish() {
	if !w.holding {
		return
	}
	var e struct {
		Message string              `json:"message"`
		Errors  map[string][]string `json:"errors,omitempty"`
	}
	if json.Unmarshal(w.body.Bytes(), &e) != nil || e.Message == "" {
		w.release(w.body.Bytes())
		return
	}
	e.Message = sentenceAndMore(w.loc, e.Message)
	for field, sentences := range e.Errors {
		for i, s := range sentences {
			e.Errors[field][i] = w.loc.Sentence(s)
		}
	}
	body, err := json.Marshal(e)
	if err != nil {
		body = w.body.Bytes()
	}
	w.release(body)
}
