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

// maxAnswerBytes bounds the answer a model call reads: far beyond what
// num_predict lets a model write.
const maxAnswerBytes = 8 << 20

// Chat implements Model with a non-streaming /api/chat call. It posts the
// official client's request itself: the client's Chat reads every answer
// through an 8 MB buffer that it makes for each call, garbage that at one
// or two calls an entry had the collector go over a large journal's
// memory again and again. Errors come as the client gives them.
func (o *Ollama) Chat(ctx context.Context, req ChatRequest) (ChatResult, error) {
	stream := false
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 2048
	}
	start := time.Now()
	var res ChatResult
	answer, raw, err := exchange(ctx, o.http, http.MethodPost, o.base.JoinPath("api/chat").String(), &api.ChatRequest{
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
	}, maxAnswerBytes, nil)
	res.Duration = time.Since(start)
	switch {
	case err != nil:
		return res, err
	case answer.StatusCode >= http.StatusBadRequest:
		return res, classify(api.StatusError{StatusCode: answer.StatusCode, Status: answer.Status, ErrorMessage: errorMessage(raw)})
	case len(raw) > maxAnswerBytes:
		return res, fmt.Errorf("%w: an answer longer than %d bytes", ErrTransient, maxAnswerBytes)
	}
	var chat api.ChatResponse
	if err := json.Unmarshal(raw, &chat); err != nil {
		return res, fmt.Errorf("%w: the answer is not Ollama's JSON: %v", ErrTransient, err)
	}
	res.Content = chat.Message.Content
	if !chat.Done {
		// An answer cut off mid-way (a dropped connection, a crashed
		// runner): what came is not the whole answer.
		return res, fmt.Errorf("%w: the answer ended before Ollama said it was done", ErrTransient)
	}
	res.PromptTokens, res.OutputTokens = chat.PromptEvalCount, chat.EvalCount
	res.Truncated = chat.DoneReason == "length"
	return res, nil
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
