package fakeollama

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Per-token speeds behind the durations a chat answer reports.
const (
	promptTokenTime = 100 * time.Microsecond
	outputTokenTime = 10 * time.Millisecond
	loadTime        = time.Millisecond
)

// handleChat answers POST /api/chat the way Ollama's ChatHandler does.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req api.ChatRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	call := s.record(Call{Path: "/api/chat", Model: req.Model, Request: &req, Format: req.Format})
	streaming := req.Stream == nil || *req.Stream
	switch {
	case !s.hasModel(req.Model):
		notFound(w, req.Model)
		return
	case embeddingOnly(req.Model):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	case s.answerFault(w, r, streaming):
		return
	case len(req.Messages) == 0:
		// Ollama only loads the model, and answers in one object even
		// when asked to stream.
		writeJSON(w, http.StatusOK, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load"})
		return
	}

	s.mu.Lock()
	script := s.chat
	s.mu.Unlock()
	reply := Reply{Content: "{}"}
	if script != nil {
		reply = script(&req)
	}
	if answerOdd(w, r, reply, streaming) {
		return
	}

	prompt := cmp.Or(reply.PromptEvalCount, promptTokens(req.Messages))
	output := cmp.Or(reply.EvalCount, Tokens(reply.Content))
	s.setTokens(call, prompt, output)
	final := api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: cmp.Or(reply.DoneReason, "stop"),
		Metrics: api.Metrics{
			TotalDuration:      time.Since(start) + loadTime + time.Duration(prompt)*promptTokenTime + time.Duration(output)*outputTokenTime,
			LoadDuration:       loadTime,
			PromptEvalCount:    prompt,
			PromptEvalDuration: time.Duration(prompt) * promptTokenTime,
			EvalCount:          output,
			EvalDuration:       time.Duration(output) * outputTokenTime,
		},
	}
	if !streaming {
		final.Message.Content = reply.Content
		writeJSON(w, http.StatusOK, final)
		return
	}
	streamChat(w, r, final, reply.Content)
}

// answerFault answers with the fault set by SetFault, if any, and reports
// whether it did.
func (s *Server) answerFault(w http.ResponseWriter, r *http.Request, streaming bool) bool {
	f, ok := s.currentFault()
	if ok && !answerOdd(w, r, f, streaming) {
		// A fault that says neither how nor how long still fails.
		writeError(w, http.StatusInternalServerError, "")
	}
	return ok
}

// answerOdd waits out reply's Delay, then answers its Raw body or its error
// Status, and reports whether it answered (or the client left meanwhile),
// so nothing is left to answer.
func answerOdd(w http.ResponseWriter, r *http.Request, reply Reply, streaming bool) bool {
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done(): // the client gave up, or Down closed the connection
			return true
		}
	}
	switch {
	case reply.Raw != "":
		if streaming {
			w.Header().Set("Content-Type", "application/x-ndjson")
		} else {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		w.WriteHeader(cmp.Or(reply.Status, http.StatusOK))
		io.WriteString(w, reply.Raw)
		return true
	case reply.Status != 0 && reply.Status != http.StatusOK:
		writeError(w, reply.Status, reply.Error)
		return true
	}
	return false
}

// streamChat writes content as Ollama streams it: one NDJSON line per
// token-sized piece, each flushed, then final (done, counts, durations) with
// an empty message.
func streamChat(w http.ResponseWriter, r *http.Request, final api.ChatResponse, content string) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w) // ends each value with a newline
	for _, p := range pieces(content) {
		if r.Context().Err() != nil {
			return
		}
		part := api.ChatResponse{Model: final.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant", Content: p}}
		if err := enc.Encode(part); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	final.CreatedAt = time.Now().UTC()
	enc.Encode(final)
}

// pieces cuts s the way a model streams it, in token-sized pieces: a word
// with the space before it, a longer word every 8 bytes, never inside a
// UTF-8 sequence.
func pieces(s string) []string {
	var out []string
	for len(s) > 0 {
		_, end := utf8.DecodeRuneInString(s)
		for end < len(s) && end < 8 {
			r, n := utf8.DecodeRuneInString(s[end:])
			if unicode.IsSpace(r) {
				break
			}
			end += n
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// Tokens is the fake's token count of a text: four tokens for three words,
// or one token for four bytes when that is more (as in JSON, which has few
// spaces). An empty text has none.
func Tokens(text string) int {
	words := len(strings.Fields(text))
	return max((words*4+2)/3, (len(text)+3)/4)
}

// promptTokens is the fake's token count of the messages of a chat request.
func promptTokens(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += Tokens(m.Content)
	}
	return n
}
