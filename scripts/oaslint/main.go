// Command oaslint lints an OpenAPI document by vacuum's recommended rules,
// less those a rules file turns off, and prints each error and warning that
// remains, a line each; it exits 1 when any does.
//
//	go run ./scripts/oaslint -rules server/testdata/vacuum.yaml openapi.json
//
// server's TestOpenAPILint runs it over the document the server serves.
// go run keeps the built program in the build cache, so vacuum, a large
// library, is linked once, not into the server's test binary at every run.
package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/daveshanley/vacuum/motor"
	"github.com/daveshanley/vacuum/rulesets"
)

func main() {
	rulesFile := flag.String("rules", "", "the rules file: vacuum's recommended set, less the rules it turns off")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: oaslint -rules FILE DOCUMENT\n\nLints the OpenAPI DOCUMENT (a file, or - for standard input) and prints each error and warning; exits 1 when there is any.")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *rulesFile == "" || flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	n, err := lint(*rulesFile, flag.Arg(0), os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oaslint:", err)
		os.Exit(2)
	}
	if n > 0 {
		os.Exit(1)
	}
}

// lint lints the document at path by the rules of rulesFile and writes
// each error and warning to w; it returns how many there were.
func lint(rulesFile, path string, w io.Writer) (int, error) {
	config, err := os.ReadFile(rulesFile)
	if err != nil {
		return 0, err
	}
	var doc []byte
	if path == "-" {
		doc, err = io.ReadAll(os.Stdin)
	} else {
		doc, err = os.ReadFile(path)
	}
	if err != nil {
		return 0, err
	}
	ours, err := rulesets.CreateRuleSetFromData(config)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", rulesFile, err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rules := rulesets.BuildDefaultRuleSetsWithLogger(quiet).GenerateRuleSetFromSuppliedRuleSet(ours)
	if len(rules.Rules) == 0 {
		return 0, fmt.Errorf("%s gives no rules", rulesFile)
	}
	out := motor.ApplyRulesToRuleSet(&motor.RuleSetExecution{RuleSet: rules, Spec: doc, SilenceLogs: true, Logger: quiet})
	n := 0
	for _, err := range out.Errors {
		fmt.Fprintf(w, "vacuum: %v\n", err)
		n++
	}
	for _, r := range out.Results {
		if r.Rule.Severity == "error" || r.Rule.Severity == "warn" {
			fmt.Fprintf(w, "%s %s at %s: %s\n", r.Rule.Severity, r.Rule.Id, r.Path, r.Message)
			n++
		}
	}
	return n, nil
}
