// Package fakeollama is an Ollama server for tests. It speaks Ollama's wire
// protocol over real HTTP on 127.0.0.1 (/api/chat, /api/embed, /api/tags,
// /api/show, /api/version), answers chat from a script, counts calls and
// tokens, and can be down, slow, failing or answering garbage.
package fakeollama

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Version is what /api/version reports.
const Version = "0.17.4"

// Reply is a scripted answer to one chat request.
type Reply struct {
	Content         string        // the assistant message
	PromptEvalCount int           // 0: estimated from the request
	EvalCount       int           // 0: estimated from Content
	DoneReason      string        // "" means "stop"; "length" is a cut-off answer
	Status          int           // not 0 or 200: answer this HTTP status with {"error": Error}
	Error           string        // the message for Status
	Raw             string        // not empty: send this body as it is
	Delay           time.Duration // wait this long first (or until the client gives up)
}

// Call is one chat or embed request the fake received.
type Call struct {
	Path         string
	Model        string
	Request      *api.ChatRequest // chat only
	Input        []string         // embed only
	Format       json.RawMessage
	PromptTokens int
	OutputTokens int
}

// Stats totals the calls so far.
type Stats struct {
	ChatCalls, EmbedCalls      int
	PromptTokens, OutputTokens int
}

// Server is a fake Ollama.
type Server struct {
	tb   testing.TB
	addr string

	mu     sync.Mutex
	srv    *http.Server
	chat   func(*api.ChatRequest) Reply
	embed  func(string) []float32
	models []string
	calls  []Call
}

// New starts a fake on a free port of 127.0.0.1; it stops when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{tb: tb, models: []string{"qwen2.5:7b", "nomic-embed-text"}, embed: HashEmbedding}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.serve(ln)
	tb.Cleanup(s.Down)
	return s
}

// URL is the base URL to give the client.
func (s *Server) URL() string { return "http://" + s.addr }

// OnChat scripts the answers to /api/chat.
func (s *Server) OnChat(fn func(req *api.ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat = fn
}

// OnEmbed scripts the vector of each /api/embed input.
func (s *Server) OnEmbed(fn func(input string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = fn
}

// SetModels sets the models the fake has pulled.
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = names
}

// Calls returns every chat and embed call so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Stats totals the calls so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st Stats
	for _, c := range s.calls {
		if c.Request != nil {
			st.ChatCalls++
		} else {
			st.EmbedCalls++
		}
		st.PromptTokens += c.PromptTokens
		st.OutputTokens += c.OutputTokens
	}
	return st
}

// Reset forgets the calls so far.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// Down closes the listener and every connection: clients get "connection refused".
func (s *Server) Down() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Up listens again on the same address.
func (s *Server) Up() {
	s.tb.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port may take a moment to be free again
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.tb.Fatalf("fakeollama: listen again on %s: %v", s.addr, err)
	}
	s.serve(ln)
}

func (s *Server) serve(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("POST /api/embed", s.handleEmbed)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go srv.Serve(ln)
}

func (s *Server) hasModel(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.models, name)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func modelNotFound(w http.ResponseWriter, name string) {
	writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", name)})
}

// Tokens estimates a token count the way a tokenizer roughly would, at
// about four bytes of English or JSON a token.
func Tokens(text string) int { return (len(text) + 3) / 4 }

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if !s.hasModel(req.Model) {
		modelNotFound(w, req.Model)
		return
	}
	s.mu.Lock()
	script := s.chat
	s.mu.Unlock()
	reply := Reply{Content: "{}"}
	if script != nil {
		reply = script(&req)
	}
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	prompt := reply.PromptEvalCount
	if prompt == 0 {
		for _, m := range req.Messages {
			prompt += Tokens(m.Content)
		}
	}
	output := reply.EvalCount
	if output == 0 {
		output = Tokens(reply.Content)
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Path: "/api/chat", Model: req.Model, Request: &req, Format: req.Format, PromptTokens: prompt, OutputTokens: output})
	s.mu.Unlock()

	switch {
	case reply.Status != 0 && reply.Status != http.StatusOK:
		writeJSON(w, reply.Status, map[string]string{"error": reply.Error})
		return
	case reply.Raw != "":
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write([]byte(reply.Raw))
		return
	}
	done := reply.DoneReason
	if done == "" {
		done = "stop"
	}
	final := api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant"},
		Done: true, DoneReason: done,
		Metrics: api.Metrics{TotalDuration: time.Millisecond, PromptEvalCount: prompt, EvalCount: output,
			PromptEvalDuration: time.Millisecond, EvalDuration: time.Millisecond}}
	if req.Stream != nil && !*req.Stream {
		final.Message.Content = reply.Content
		writeJSON(w, http.StatusOK, final)
		return
	}
	// Streaming: the content in chunks, then a last line with the counts.
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	for _, chunk := range chunks(reply.Content, 16) {
		enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant", Content: chunk}})
		if flusher != nil {
			flusher.Flush()
		}
	}
	enc.Encode(final)
}

// chunks cuts s into pieces of about n bytes, on rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && !utf8RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if !s.hasModel(req.Model) {
		modelNotFound(w, req.Model)
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, v := range in {
			str, ok := v.(string)
			if !ok {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
				return
			}
			inputs = append(inputs, str)
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
		return
	}
	s.mu.Lock()
	embed := s.embed
	s.mu.Unlock()
	res := api.EmbedResponse{Model: req.Model}
	tokens := 0
	for _, in := range inputs {
		res.Embeddings = append(res.Embeddings, embed(in))
		tokens += Tokens(in)
	}
	res.PromptEvalCount = tokens
	s.mu.Lock()
	s.calls = append(s.calls, Call{Path: "/api/embed", Model: req.Model, Input: inputs, PromptTokens: tokens})
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	models := slices.Clone(s.models)
	s.mu.Unlock()
	var res api.ListResponse
	for _, m := range models {
		res.Models = append(res.Models, api.ListModelResponse{Name: m, Model: m, ModifiedAt: time.Now().UTC(), Size: 4 << 30})
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if !s.hasModel(name) {
		modelNotFound(w, name)
		return
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{Details: api.ModelDetails{Format: "gguf", Family: "qwen2"}})
}

// HashEmbedding is the default embedding: each word hashed into one of 64
// dimensions, normalised, so texts sharing words point the same way.
func HashEmbedding(text string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(strings.Trim(w, ".,!?;:\"'")))
		v[h.Sum32()%64]++
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
	}
	return v
}
