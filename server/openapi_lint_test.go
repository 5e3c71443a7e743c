package server_test

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestOpenAPILint runs vacuum's recommended rules over the served document,
// less the rules testdata/vacuum.yaml turns off (each with its reason): no error
// and no warning may remain. vacuum runs as scripts/oaslint, through go run,
// which keeps the built program in the build cache: vacuum is not linked
// into this test binary at every run.
func TestOpenAPILint(t *testing.T) {
	h := newHarness(t)
	res := h.do("GET", "/api/openapi.json", "", nil)
	if res.Status != 200 {
		t.Fatalf("GET /api/openapi.json: %d", res.Status)
	}
	// The first run builds the program (minutes on a cold build cache).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lint := exec.CommandContext(ctx, "go", "run", "./scripts/oaslint", "-rules", "server/testdata/vacuum.yaml", "-")
	lint.Dir, lint.Stdin = "..", bytes.NewReader(res.Body)
	if out, err := lint.CombinedOutput(); err != nil {
		t.Errorf("vacuum (%v):\n%s", err, out)
	}
}
