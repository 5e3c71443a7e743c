package server_test

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/daveshanley/vacuum/motor"
	"github.com/daveshanley/vacuum/rulesets"
)

// TestOpenAPILint runs vacuum's recommended rules over the served document,
// less the rules testdata/vacuum.yaml turns off (each with its reason): no error
// and no warning may remain.
func TestOpenAPILint(t *testing.T) {
	h := newHarness(t)
	res := h.do("GET", "/api/openapi.json", "", nil)
	if res.Status != 200 {
		t.Fatalf("GET /api/openapi.json: %d", res.Status)
	}
	config, err := os.ReadFile(filepath.Join("testdata", "vacuum.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := rulesets.CreateRuleSetFromData(config)
	if err != nil {
		t.Fatalf("testdata/vacuum.yaml: %v", err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rules := rulesets.BuildDefaultRuleSetsWithLogger(quiet).GenerateRuleSetFromSuppliedRuleSet(ours)
	if len(rules.Rules) == 0 {
		t.Fatal("testdata/vacuum.yaml gives no rules")
	}
	out := motor.ApplyRulesToRuleSet(&motor.RuleSetExecution{RuleSet: rules, Spec: res.Body, SilenceLogs: true, Logger: quiet})
	for _, err := range out.Errors {
		t.Errorf("vacuum: %v", err)
	}
	for _, r := range out.Results {
		if r.Rule.Severity == "error" || r.Rule.Severity == "warn" {
			t.Errorf("%s %s at %s: %s", r.Rule.Severity, r.Rule.Id, r.Path, r.Message)
		}
	}
}
