// Package fakeopenai is an OpenAI-compatible model server for tests, as
// llama-server, vLLM, LM Studio and LocalAI are. It speaks the wire format
// of the OpenAI API over real HTTP on 127.0.0.1:
//
//   - POST /v1/chat/completions answers from a script (OnChat), in one JSON
//     object, and can answer an error status with Retry-After;
//   - POST /v1/embeddings answers a deterministic vector per input;
//   - GET /v1/models lists the models it serves (SetModels).
//
// With a key set (RequireKey) every route wants it as a bearer token.
// Every chat and embed call is recorded (Calls).
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultModels are the models a new fake serves: a chat model and an
// embedding model.
var DefaultModels = []string{"qwen2.5-7b-instruct", "nomic-embed-text"}

// Message is one message of a chat request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a /v1/chat/completions request as received.
type ChatRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Temperature    *float64        `json:"temperature"`
	Seed           *int            `json:"seed"`
	MaxTokens      int             `json:"max_tokens"`
	Stream         bool            `json:"stream"`
}

// Reply is the scripted answer to one chat request.
type Reply struct {
	// Content is the assistant message content.
	Content string
	// FinishReason is "stop" when empty; "length" is an answer cut off at
	// max_tokens.
	FinishReason string
	// Status, when neither 0 nor 200, is the status to answer with, with an
	// OpenAI-style error body saying Error.
	Status int
	Error  string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
}

// Call is one chat or embeddings request the fake received.
type Call struct {
	Path string
	// Authorization is the header as received.
	Authorization string
	// Chat is the decoded chat request; nil for embeddings.
	Chat *ChatRequest
	// Input is the embeddings request's inputs.
	Input []string
}

// Server is a fake OpenAI-compatible server. Its methods are safe for
// concurrent use.
type Server struct {
	srv *httptest.Server

	mu     sync.Mutex
	key    string
	chat   func(*ChatRequest) Reply
	models []string
	calls  []Call
}

// New starts a fake on 127.0.0.1 that stops when tb's test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{models: slices.Clone(DefaultModels)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbed)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	s.srv = httptest.NewServer(s.authorised(mux))
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the API's base, "http://127.0.0.1:PORT/v1".
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// RequireKey makes every route answer 401 unless the request carries
// "Authorization: Bearer key".
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// OnChat scripts the answer to each chat request; without a script every
// chat is answered "{}".
func (s *Server) OnChat(fn func(*ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat = fn
}

// SetModels sets the models /v1/models lists and the routes serve.
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = slices.Clone(names)
}

// Calls returns every chat and embeddings call so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *Server) authorised(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		key := s.key
		s.mu.Unlock()
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			writeError(w, http.StatusUnauthorized, "Incorrect API key provided.", "invalid_request_error")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hasModel(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.models, name)
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "invalid_request_error")
		return
	}
	s.record(Call{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Chat: &req})
	if !s.hasModel(req.Model) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model), "invalid_request_error")
		return
	}
	s.mu.Lock()
	script := s.chat
	s.mu.Unlock()
	reply := Reply{Content: "{}"}
	if script != nil {
		reply = script(&req)
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.Error, "server_error")
		return
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += tokens(m.Content)
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	output := tokens(reply.Content)
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": reply.Content}}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output},
	})
}

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "invalid_request_error")
		return
	}
	var inputs []string
	if json.Unmarshal(req.Input, &inputs) != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			writeError(w, http.StatusBadRequest, "input must be a string or an array of strings", "invalid_request_error")
			return
		}
		inputs = []string{one}
	}
	s.record(Call{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Input: inputs})
	if !s.hasModel(req.Model) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model), "invalid_request_error")
		return
	}
	data := make([]any, len(inputs))
	n := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embedding(in)}
		n += tokens(in)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]any{"prompt_tokens": n, "total_tokens": n}})
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data := make([]any, len(s.models))
	for i, m := range s.models {
		data[i] = map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "fake"}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// embedding is a unit vector of 16 numbers drawn from the text's hash: the
// same text, the same vector.
func embedding(text string) []float32 {
	v := make([]float32, 16)
	var sum float64
	for i := range v {
		h := fnv.New32a()
		fmt.Fprintf(h, "%d:%s", i, strings.ToLower(text))
		v[i] = float32(h.Sum32()%2000)/1000 - 1
		sum += float64(v[i] * v[i])
	}
	norm := float32(math.Sqrt(sum))
	for i := range v {
		if norm > 0 {
			v[i] /= norm
		}
	}
	return v
}

// tokens is the fake's token count of a text: one for four bytes.
func tokens(text string) int { return (len(text) + 3) / 4 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, message, kind string) {
	if message == "" {
		message = http.StatusText(status)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": kind, "code": nil}})
}

// Text is the request's system message and its last user message.
func (r *ChatRequest) Text() (system, user string) {
	for _, m := range r.Messages {
		switch m.Role {
		case "system":
			if system == "" {
				system = m.Content
			}
		case "user":
			user = m.Content
		}
	}
	return system, user
}
