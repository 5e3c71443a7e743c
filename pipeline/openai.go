package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OpenAIOptions configures the client of an OpenAI-compatible server
// (llama.cpp's llama-server, vLLM, LM Studio, LocalAI).
type OpenAIOptions struct {
	// URL is the API's base, /v1 included: http://127.0.0.1:8081/v1.
	URL        string
	Model      string
	EmbedModel string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// Timeout bounds one model call.
	Timeout time.Duration
}

// OpenAI talks to an OpenAI-compatible server over plain HTTP.
type OpenAI struct {
	client *http.Client
	base   string // URL without a trailing slash
	opts   OpenAIOptions
}

var _ Provider = (*OpenAI)(nil)

// Bounds on what is read of an answer: a chat answer is at most a few
// thousand tokens, and an embedding a few thousand numbers per input.
const (
	maxChatBody  = 4 << 20
	maxEmbedBody = 64 << 20
	maxOtherBody = 1 << 20
)

// NewOpenAI returns a client for the server at opts.URL.
func NewOpenAI(opts OpenAIOptions) (*OpenAI, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("model url: %q is not an http URL", opts.URL)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	hc := modelHTTPClient(opts.Timeout)
	return &OpenAI{client: hc, base: strings.TrimRight(opts.URL, "/"), opts: opts}, nil
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIChatRequest struct {
	Model          string          `json:"model"`
	Messages       []openAIMessage `json:"messages"`
	ResponseFormat any             `json:"response_format"`
	Temperature    float64         `json:"temperature"`
	Seed           int             `json:"seed"`
	MaxTokens      int             `json:"max_tokens"`
	Stream         bool            `json:"stream"`
}

type openAIChatResponse struct {
	Choices []struct {
		Message      openAIMessage `json:"message"`
		FinishReason string        `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Chat implements Model with a non-streaming /chat/completions call whose
// answer is held to req.Schema by response_format.
func (o *OpenAI) Chat(ctx context.Context, req ChatRequest) (ChatResult, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 2048
	}
	name := req.Step
	if name == "" {
		name = "answer"
	}
	body := openAIChatRequest{
		Model: o.opts.Model,
		Messages: []openAIMessage{
			{Role: "system", Content: req.System},
			{Role: "user", Content: req.User},
		},
		ResponseFormat: map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": name, "schema": req.Schema, "strict": true}},
		Temperature: 0,
		Seed:        seed,
		MaxTokens:   maxTokens,
	}
	start := time.Now()
	var res ChatResult
	var answer openAIChatResponse
	err := o.call(ctx, http.MethodPost, "/chat/completions", body, maxChatBody, &answer)
	res.Duration = time.Since(start)
	if err != nil {
		return res, err
	}
	if len(answer.Choices) == 0 {
		return res, fmt.Errorf("%w: the answer holds no choice", ErrTransient)
	}
	c := answer.Choices[0]
	res.Content = c.Message.Content
	res.Truncated = c.FinishReason == "length"
	res.PromptTokens, res.OutputTokens = answer.Usage.PromptTokens, answer.Usage.CompletionTokens
	return res, nil
}

// Embed implements Model with /embeddings.
func (o *OpenAI) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if o.opts.EmbedModel == "" {
		return nil, fmt.Errorf("%w: no embed_name configured", ErrUnavailable)
	}
	var answer struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	body := map[string]any{"model": o.opts.EmbedModel, "input": inputs}
	if err := o.call(ctx, http.MethodPost, "/embeddings", body, maxEmbedBody, &answer); err != nil {
		return nil, err
	}
	if len(answer.Data) != len(inputs) {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", ErrTransient, len(answer.Data), len(inputs))
	}
	out := make([][]float32, len(inputs))
	for _, d := range answer.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: an embedding with index %d", ErrTransient, d.Index)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// Check asks the server for its models and whether the configured ones are
// among them.
func (o *OpenAI) Check(ctx context.Context) Status {
	st := Status{Provider: "openai", URL: publicURL(o.opts.URL), Model: o.opts.Model, EmbedModel: o.opts.EmbedModel}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := o.call(ctx, http.MethodGet, "/models", nil, maxOtherBody, &list); err != nil {
		st.Problem = fmt.Sprintf("The model server does not answer at %s (%v). Start it, or set [model] url (the base, /v1 included) and api_key.",
			st.URL, err)
		return st
	}
	st.Reachable = true
	has := func(name string) bool {
		for _, m := range list.Data {
			if m.ID == name {
				return true
			}
		}
		return false
	}
	st.ModelPresent = has(o.opts.Model)
	if o.opts.EmbedModel != "" {
		st.EmbedModelPresent = has(o.opts.EmbedModel)
	}
	switch {
	case !st.ModelPresent:
		st.Problem = fmt.Sprintf("The model server at %s does not serve the model %s. Load it there, or set [model] name to one it lists at /models.",
			st.URL, o.opts.Model)
	case o.opts.EmbedModel != "" && !st.EmbedModelPresent:
		st.Problem = fmt.Sprintf("The model server at %s does not serve the embedding model %s. Load it there, or set [model] embed_name to one it lists at /models.",
			st.URL, o.opts.EmbedModel)
	}
	return st
}

// call sends body (if any) as JSON to the path under the base and decodes
// the answer, read up to limit bytes, into out. Its errors are classified
// as ErrUnavailable or ErrTransient (see classifyStatus).
func (o *OpenAI) call(ctx context.Context, method, path string, body any, limit int64, out any) error {
	res, b, err := exchange(ctx, o.client, method, o.base+path, body, limit, func(h http.Header) {
		if o.opts.APIKey != "" {
			h.Set("Authorization", "Bearer "+o.opts.APIKey)
		}
	})
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return classifyStatus(res, b)
	}
	if int64(len(b)) > limit {
		return fmt.Errorf("%w: the answer to %s is longer than %d bytes", ErrTransient, path, limit)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%w: the answer to %s is not the JSON expected: %v", ErrTransient, path, err)
	}
	return nil
}

// classifyStatus turns an error answer into an error of its kind: a
// missing model (404) or a refused key (401, 403) leaves captures waiting
// until the server or the configuration is put right; a refused request
// (400, 413, 422) is Refused; anything else (429, 5xx) is transient, and
// carries the wait the server asked for.
func classifyStatus(res *http.Response, body []byte) error {
	msg := errorMessage(body)
	if msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	err := fmt.Errorf("%s %s answered %d: %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, msg)
	switch res.StatusCode {
	case http.StatusNotFound, http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return &Refused{Err: err}
	}
	if wait, ok := retryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
		return &RetryLater{Wait: wait, Err: err}
	}
	return fmt.Errorf("%w: %v", ErrTransient, err)
}

// errorMessage is the message of an OpenAI-style error body,
// {"error": {"message": ...}} or {"error": "..."}, or the start of the body.
func errorMessage(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return text
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	if h == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Refused is a request the model server would not take (400, 413, 422):
// the same request is refused again, so it is not retried. A run it ends
// is judged as one that met unusable answers: when the server answers a
// plain check, the capture fails (its prompt was beyond the server's
// context, say); when it refuses that too, the server's configuration is
// at fault (a json_schema response format it does not take, a model name
// it does not know), and analysis waits, with the server's words in the
// log and the health check, until it is put right.
type Refused struct{ Err error }

func (e *Refused) Error() string {
	return fmt.Sprintf("the model server refused the request (%v); if it refuses every one, check that it takes response_format json_schema (llama-server: --jinja) and [model] name", e.Err)
}

// Unwrap is the server's answer.
func (e *Refused) Unwrap() error { return e.Err }

// RetryLater is a transient failure whose server said how long to wait
// before asking again (Retry-After). It is an ErrTransient.
type RetryLater struct {
	Wait time.Duration
	Err  error
}

func (e *RetryLater) Error() string {
	return fmt.Sprintf("%v: %v (retry after %v)", ErrTransient, e.Err, e.Wait)
}

// Is reports it as ErrTransient.
func (e *RetryLater) Is(target error) bool { return target == ErrTransient }

// Unwrap is the failure.
func (e *RetryLater) Unwrap() error { return e.Err }

// waitAsked is the wait a failure's server asked for, if any.
func waitAsked(err error) time.Duration {
	var rl *RetryLater
	if errors.As(err, &rl) {
		return rl.Wait
	}
	return 0
}
