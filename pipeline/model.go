package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
)

// Model is what a run needs of a language model. *Ollama and *OpenAI are
// the real ones.
type Model interface {
	// Chat asks for one answer in the JSON shape of req.Schema.
	Chat(ctx context.Context, req ChatRequest) (ChatResult, error)
	// Embed returns one vector per input.
	Embed(ctx context.Context, inputs []string) ([][]float32, error)
}

var _ Model = (*Ollama)(nil)

// ChatRequest is one structured-output call. System is the fixed part of
// the prompt (instructions, vocabulary, schema), kept identical across
// captures so Ollama can reuse its cache; User is what changes.
type ChatRequest struct {
	System    string
	User      string
	Schema    json.RawMessage
	MaxTokens int
	// Step names the analysis step the call is for, for the metrics.
	Step string
}

// ChatResult is the model's answer and what it cost.
type ChatResult struct {
	Content      string
	PromptTokens int
	OutputTokens int
	Truncated    bool // the answer hit the token limit and is cut off
	Duration     time.Duration
}

// Errors of a model call, by whose fault they are. A call that fails with
// ErrUnavailable leaves the capture queued; ErrTransient retries it later;
// an unusable answer is retried at once and finally fails the capture.
var (
	ErrUnavailable = errors.New("the model server cannot be reached or lacks the model")
	ErrTransient   = errors.New("the model server failed to answer")
)

// Fixed sampling options: the same entry gives the same answer.
const (
	contextTokens = 8192
	seed          = 42
)

// Chat implements Model with a non-streaming /api/chat call.
func (o *Ollama) Chat(ctx context.Context, req ChatRequest) (ChatResult, error) {
	stream := false
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 2048
	}
	start := time.Now()
	var res ChatResult
	done := false
	err := o.client.Chat(ctx, &api.ChatRequest{
		Model: o.opts.Model,
		Messages: []api.Message{
			{Role: "system", Content: req.System},
			{Role: "user", Content: req.User},
		},
		Format: req.Schema,
		Stream: &stream,
		Options: map[string]any{
			"temperature": 0,
			"seed":        seed,
			"num_ctx":     contextTokens,
			"num_predict": maxTokens,
		},
	}, func(r api.ChatResponse) error {
		res.Content += r.Message.Content
		if r.Done {
			done = true
			res.PromptTokens, res.OutputTokens = r.PromptEvalCount, r.EvalCount
			res.Truncated = r.DoneReason == "length"
		}
		return nil
	})
	res.Duration = time.Since(start)
	if err == nil && !done {
		// The client returns nil for an answer cut off mid-way (a dropped
		// connection, a crashed runner): what came is not the whole answer.
		return res, fmt.Errorf("%w: the answer ended before Ollama said it was done", ErrTransient)
	}
	return res, classify(err)
}

// Embed implements Model with /api/embed.
func (o *Ollama) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if o.opts.EmbedModel == "" {
		return nil, fmt.Errorf("%w: no embed_model configured", ErrUnavailable)
	}
	res, err := o.client.Embed(ctx, &api.EmbedRequest{Model: o.opts.EmbedModel, Input: inputs})
	if err != nil {
		return nil, classify(err)
	}
	if len(res.Embeddings) != len(inputs) {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", ErrTransient, len(res.Embeddings), len(inputs))
	}
	return res.Embeddings, nil
}

// classify wraps an error from the Ollama client with ErrUnavailable or
// ErrTransient. A connection that cannot be made, or a model that is not
// pulled, is unavailability; a timeout or a server error is transient.
func classify(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var se api.StatusError
	if errors.As(err, &se) {
		if se.StatusCode == http.StatusNotFound {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		if se.StatusCode == http.StatusBadRequest {
			return &Refused{Err: err}
		}
		return fmt.Errorf("%w: %v", ErrTransient, err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %v", ErrTransient, err)
}
