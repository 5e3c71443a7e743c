// Package fakeollama is an Ollama server for tests. It speaks Ollama's wire
// protocol (as of Ollama 0.17.4) over real HTTP on 127.0.0.1, so the real
// github.com/ollama/ollama/api client runs unchanged against it:
//
//   - POST /api/chat answers from a script (OnChat), streamed as NDJSON or
//     in one JSON object, and can fail, stall or answer garbage;
//   - POST /api/embed answers a deterministic vector per input (OnEmbed);
//   - GET /api/tags, POST /api/show, GET /api/version and GET / describe the
//     server and the models it has (SetModels);
//   - Down and Up take the whole server off the network and back;
//   - SetFault makes every chat and embed call fail (or hang) alike, as a
//     crashed or loading runner does, while the rest still answers.
//
// Every chat and embed call is recorded with its token counts (Calls, Stats).
package fakeollama

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/internal/wait"
)

// Version is what GET /api/version reports.
const Version = "0.17.4"

// DefaultModels are the models a new fake has pulled: a chat model and an
// embedding model.
var DefaultModels = []string{"qwen2.5:7b", "nomic-embed-text"}

// Reply is the scripted answer to one /api/chat request.
type Reply struct {
	// Content is the assistant message content.
	Content string
	// PromptEvalCount is the reported prompt token count; 0 means an
	// estimate from the request messages (see Tokens).
	PromptEvalCount int
	// EvalCount is the reported output token count; 0 means an estimate
	// from Content (see Tokens).
	EvalCount int
	// DoneReason is the reported reason the answer ended: "" means "stop";
	// "length" simulates an answer cut off at the token limit.
	DoneReason string
	// Status, when neither 0 nor 200, is the HTTP status to answer with,
	// with an Ollama-style {"error": Error} body. The client returns it as
	// an api.StatusError (by value), or as an api.AuthorizationError for 401.
	Status int
	// Error is the error message sent with Status; "" means the status text.
	Error string
	// Raw, when not empty, is written as the whole response body instead of
	// a well-formed answer (with Status if set, else 200). In a streaming
	// answer it may hold several NDJSON lines.
	Raw string
	// Delay is how long to wait before answering. The wait ends early, and
	// nothing is answered, when the client gives up or the server goes Down.
	Delay time.Duration
}

// Call is one /api/chat or /api/embed request the fake received.
type Call struct {
	// Path is "/api/chat" or "/api/embed".
	Path string
	// Model is the model named in the request, as sent.
	Model string
	// Request is the decoded chat request; nil for embed.
	Request *api.ChatRequest
	// Input is the embed request's inputs; nil for chat.
	Input []string
	// Format is the chat request's format, as received. The client compacts
	// it, so compare with the compact form of what was sent.
	Format json.RawMessage
	// PromptTokens and OutputTokens are the counts reported to the client;
	// both are 0 for a call answered with an error, a Raw body, or nothing.
	PromptTokens, OutputTokens int
}

// Stats totals the calls so far.
type Stats struct {
	// ChatCalls and EmbedCalls count the requests received, failed ones
	// included.
	ChatCalls, EmbedCalls int
	// PromptTokens and OutputTokens total the counts reported by chat
	// answers, which is what a client that records its chat calls records.
	PromptTokens, OutputTokens int
	// EmbedTokens totals the prompt counts reported by embed answers.
	EmbedTokens int
}

// LoadingModel is the answer Ollama 0.17 gives a chat while the model's
// runner is still loading: a 500 with the runner's status.
func LoadingModel() Reply {
	return Reply{Status: http.StatusInternalServerError, Error: "unexpected server status: llm server loading model"}
}

// ServerBusy is the answer Ollama 0.17 gives when its queue of pending
// requests is full.
func ServerBusy() Reply {
	return Reply{Status: http.StatusServiceUnavailable, Error: "server busy, please try again.  maximum pending requests exceeded"}
}

// Server is a fake Ollama listening on 127.0.0.1. Its methods are safe for
// concurrent use.
type Server struct {
	errorf  func(format string, args ...any)
	addr    string
	handler http.Handler

	mu     sync.Mutex
	srv    *http.Server // nil while down
	ln     net.Listener // srv's listener
	ended  bool         // the test is over: stay down
	active int          // requests being handled
	chat   func(*api.ChatRequest) Reply
	embed  func(string) []float32
	models []string // canonical names, in the order given
	calls  []*Call
	fault  *Reply // answered to every chat and embed call while set
}

// New starts a fake on 127.0.0.1 with a random port. It stops when tb's test
// ends, after the requests it is handling have returned (for a bounded time).
func New(tb testing.TB) *Server {
	tb.Helper()
	s, err := Listen("127.0.0.1:0", tb.Errorf)
	if err != nil {
		tb.Fatalf("fakeollama: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Listen starts a fake on addr, for a program rather than a test; errorf
// reports what goes wrong in the background. Close stops it.
func Listen(addr string, errorf func(format string, args ...any)) (*Server, error) {
	s := &Server{errorf: errorf, embed: HashEmbedding}
	s.SetModels(DefaultModels...)
	s.handler = s.routes()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s.addr = ln.Addr().String()
	s.serve(ln)
	return s, nil
}

// URL is the server's base URL, "http://127.0.0.1:PORT". It stays the same
// across Down and Up.
func (s *Server) URL() string { return "http://" + s.addr }

// OnChat scripts the answer to each /api/chat request: fn sees the decoded
// request and returns the Reply. It may be called from several goroutines
// at once. Without a script every chat is answered with Content "{}".
func (s *Server) OnChat(fn func(req *api.ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat = fn
}

// OnEmbed scripts the vector of each /api/embed input; nil restores the
// default, HashEmbedding. Like Ollama, the fake normalises every vector to
// unit length before answering.
func (s *Server) OnEmbed(fn func(input string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = fn
	if fn == nil {
		s.embed = HashEmbedding
	}
}

// SetModels sets the models the fake has pulled: what /api/tags lists and
// what chat, embed and show know. Names match as Ollama matches them: case
// does not matter and a name without a tag means ":latest". With no names,
// every model is unknown.
func (s *Server) SetModels(names ...string) {
	models := make([]string, 0, len(names))
	for _, n := range names {
		if c := canonical(n); !slices.Contains(models, c) {
			models = append(models, c)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = models
}

// SetFault makes every /api/chat and /api/embed call answer r (an error
// status, a hang with Delay, a Raw body cut short) instead of its script,
// until ClearFault; the other routes keep answering, as they do when a
// model runner has crashed or is loading.
func (s *Server) SetFault(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = &r
}

// ClearFault makes chat and embed answer from their scripts again.
func (s *Server) ClearFault() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = nil
}

// currentFault is the fault set, if any.
func (s *Server) currentFault() (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault == nil {
		return Reply{}, false
	}
	return *s.fault, true
}

// Calls returns every chat and embed call so far, in the order received.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Call, len(s.calls))
	for i, c := range s.calls {
		out[i] = *c
	}
	return out
}

// Stats totals the calls so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st Stats
	for _, c := range s.calls {
		if c.Request != nil {
			st.ChatCalls++
			st.PromptTokens += c.PromptTokens
			st.OutputTokens += c.OutputTokens
		} else {
			st.EmbedCalls++
			st.EmbedTokens += c.PromptTokens
		}
	}
	return st
}

// Reset forgets the calls so far.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// Down closes the listener and every open connection, so requests in flight
// fail and new ones get "connection refused". It does nothing when the
// server is already down.
func (s *Server) Down() {
	s.mu.Lock()
	srv, ln := s.srv, s.ln
	s.srv, s.ln = nil, nil
	s.mu.Unlock()
	if srv != nil {
		// srv.Close closes the listener only once srv.Serve has started
		// with it: close it here too, lest it take connections meanwhile.
		ln.Close()
		srv.Close()
	}
}

// Up listens again on the same address after Down, retrying for up to two
// seconds while the port is busy. It does nothing when the server is up or
// the test is over, and reports a failure (tb.Errorf, so it is safe from any
// goroutine) when the port cannot be had.
func (s *Server) Up() {
	s.mu.Lock()
	skip := s.srv != nil || s.ended
	s.mu.Unlock()
	if skip {
		return
	}
	var ln net.Listener
	var err error
	if !wait.Poll(2*time.Second, func() bool {
		ln, err = net.Listen("tcp", s.addr)
		return err == nil
	}) {
		s.errorf("fakeollama: listen again on %s: %v", s.addr, err)
		return
	}
	s.serve(ln)
}

// serve serves ln with a new http.Server, unless the server is up already.
func (s *Server) serve(ln net.Listener) {
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 5 * time.Second}
	s.mu.Lock()
	if s.srv != nil || s.ended {
		s.mu.Unlock()
		ln.Close()
		return
	}
	s.srv, s.ln = srv, ln
	s.mu.Unlock()
	go srv.Serve(ln) // returns http.ErrServerClosed on Down
}

// Close takes the server down for good and waits, for a bounded time, for
// the handlers still running, so that no script runs after the test.
func (s *Server) Close() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.Down()
	if wait.Poll(5*time.Second, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.active == 0
	}) {
		return
	}
	s.errorf("fakeollama: requests still being handled 5s after it was closed")
}

// routes is the server's handler, the same across Down and Up.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("POST /api/embed", s.handleEmbed)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("GET /api/version", handleVersion)
	mux.HandleFunc("GET /{$}", handleRoot) // GET patterns answer HEAD too, as Client.Heartbeat sends
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.active++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.active--
			s.mu.Unlock()
		}()
		mux.ServeHTTP(w, r)
	})
}

// record appends a call and returns it, so its token counts can be set once
// they are known (see setTokens).
func (s *Server) record(c Call) *Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &c
	s.calls = append(s.calls, p)
	return p
}

// setTokens sets the token counts of a recorded call.
func (s *Server) setTokens(c *Call, prompt, output int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.PromptTokens, c.OutputTokens = prompt, output
}

// hasModel reports whether the model named is pulled.
func (s *Server) hasModel(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.models, canonical(name))
}
