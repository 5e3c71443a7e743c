package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	body, err := json.Marshal(&api.ChatRequest{
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
	})
	if err != nil {
		return ChatResult{}, err
	}
	start := time.Now()
	var res ChatResult
	raw, status, err := o.post(ctx, "api/chat", body)
	res.Duration = time.Since(start)
	if err != nil {
		return res, classify(err)
	}
	if status.code >= http.StatusBadRequest {
		var e struct {
			Error string `json:"error"`
		}
		msg := string(raw)
		if json.Unmarshal(raw, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return res, classify(api.StatusError{StatusCode: status.code, Status: status.text, ErrorMessage: msg})
	}
	var answer api.ChatResponse
	if err := json.Unmarshal(raw, &answer); err != nil {
		return res, fmt.Errorf("%w: the answer is not Ollama's JSON: %v", ErrTransient, err)
	}
	res.Content = answer.Message.Content
	if !answer.Done {
		// An answer cut off mid-way (a dropped connection, a crashed
		// runner): what came is not the whole answer.
		return res, fmt.Errorf("%w: the answer ended before Ollama said it was done", ErrTransient)
	}
	res.PromptTokens, res.OutputTokens = answer.PromptEvalCount, answer.EvalCount
	res.Truncated = answer.DoneReason == "length"
	return res, nil
}

// httpStatus is an answer's status code and line.
type httpStatus struct {
	code int
	text string
}

// post sends body to the server's path and reads its answer, up to
// maxAnswerBytes.
func (o *Ollama) post(ctx context.Context, path string, body []byte) ([]byte, httpStatus, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, o.base.JoinPath(path).String(), bytes.NewReader(body))
	if err != nil {
		return nil, httpStatus{}, err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	resp, err := o.http.Do(r)
	if err != nil {
		return nil, httpStatus{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err == nil && len(raw) > maxAnswerBytes {
		err = fmt.Errorf("an answer longer than %d bytes", maxAnswerBytes)
	}
	return raw, httpStatus{resp.StatusCode, resp.Status}, err
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
