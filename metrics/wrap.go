package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/pipeline"
)

// Model returns model, counting each of its calls by step.
func (m *Metrics) Model(model pipeline.Model) pipeline.Model {
	return countedModel{Model: model, m: m}
}

type countedModel struct {
	pipeline.Model
	m *Metrics
}

var _ pipeline.Model = countedModel{}

// embedStep is the step label of embedding calls.
const embedStep = "embed"

// Chat implements pipeline.Model.
func (c countedModel) Chat(ctx context.Context, req pipeline.ChatRequest) (pipeline.ChatResult, error) {
	start := time.Now()
	res, err := c.Model.Chat(ctx, req)
	step := req.Step
	if step == "" {
		step = "other"
	}
	result := "ok"
	switch {
	case err != nil:
		result = "error"
	case res.Truncated:
		result = "truncated"
	}
	c.m.modelCalls.WithLabelValues(step, result).Inc()
	c.m.modelDuration.WithLabelValues(step).Observe(time.Since(start).Seconds())
	c.m.promptTokens.WithLabelValues(step).Add(float64(max(res.PromptTokens, 0)))
	c.m.outputTokens.WithLabelValues(step).Add(float64(max(res.OutputTokens, 0)))
	return res, err
}

// Embed implements pipeline.Model.
func (c countedModel) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	start := time.Now()
	v, err := c.Model.Embed(ctx, inputs)
	result := "ok"
	if err != nil {
		result = "error"
	}
	c.m.modelCalls.WithLabelValues(embedStep, result).Inc()
	c.m.modelDuration.WithLabelValues(embedStep).Observe(time.Since(start).Seconds())
	return v, err
}

// Detector returns d, counting and timing each of its runs.
func (m *Metrics) Detector(d pipeline.Detector) pipeline.Detector {
	return countedDetector{Detector: d, m: m}
}

type countedDetector struct {
	pipeline.Detector
	m *Metrics
}

// Detect implements pipeline.Detector.
func (c countedDetector) Detect(ctx context.Context, userID string) error {
	start := time.Now()
	err := c.Detector.Detect(ctx, userID)
	result := "ok"
	if err != nil {
		result = "error"
	}
	c.m.detections.WithLabelValues(result).Inc()
	c.m.detectionDuration.Observe(time.Since(start).Seconds())
	return err
}

// Sender returns s, counting mails sent and tries that failed.
func (m *Metrics) Sender(s mail.Sender) mail.Sender {
	return countedSender{Sender: s, m: m}
}

type countedSender struct {
	mail.Sender
	m *Metrics
}

// Send implements mail.Sender.
func (c countedSender) Send(ctx context.Context, msg mail.Message) error {
	err := c.Sender.Send(ctx, msg)
	// A mail written to the log stands in for one sent, as far as counts go.
	if err != nil && !errors.Is(err, mail.ErrLogged) {
		c.m.mailFailed.Inc()
	} else {
		c.m.mailSent.Inc()
	}
	return err
}
