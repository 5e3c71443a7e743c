package evaluate

import (
	"testing"

	"github.com/recur-journal/recur/pipeline"
)

// The fixed start of a step is what all its prompts share byte for byte,
// and the tokens split between it and the rest by their bytes.
func TestPromptMeterSplitsFixedStart(t *testing.T) {
	var m promptMeter
	m.record(pipeline.ChatRequest{Step: pipeline.StepSegment, System: "0123456789", User: "abcdefghij"}, 21)
	m.record(pipeline.ChatRequest{Step: pipeline.StepSegment, System: "0123456789", User: "xyz-------"}, 21)
	m.record(pipeline.ChatRequest{Step: pipeline.StepDescribe, System: "only once", User: "u"}, 3)
	steps := m.report()
	if len(steps) != 2 || steps[0].Step != pipeline.StepSegment || steps[1].Step != pipeline.StepDescribe {
		t.Fatalf("steps %+v; want segment, then describe", steps)
	}
	s := steps[0]
	if got, want := s.FixedBytes, 11; got != want { // the system message and the line between
		t.Errorf("fixed bytes = %d, want %d", got, want)
	}
	if got, want := s.FixedTokens, 11.0; got != want { // 42 tokens over 42 bytes
		t.Errorf("fixed tokens = %v, want %v", got, want)
	}
	if got, want := s.VaryingTokensPerCall, 10.0; got != want {
		t.Errorf("varying tokens a call = %v, want %v", got, want)
	}
	if steps[1].FixedBytes != 0 {
		t.Errorf("a step of one call has a fixed start of %d bytes; want 0, as it cannot be told", steps[1].FixedBytes)
	}
	fixed, varying := splitPerEntry(steps, 2)
	if fixed != 11 || varying != 10 {
		t.Errorf("per entry %v fixed, %v varying; want 11 and 10, describe left out", fixed, varying)
	}
}
