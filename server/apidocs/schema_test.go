package apidocs

import (
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

func TestLabel(t *testing.T) {
	reg := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	reg.Map()["Entry"] = &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{"id": {Type: huma.TypeString}}}
	reg.Map()["Kind"] = &huma.Schema{Type: huma.TypeString, Enum: []any{"a", "b"}}
	w := schemaWalker{reg: reg}
	str := &huma.Schema{Type: huma.TypeString}
	for _, c := range []struct {
		schema *huma.Schema
		want   string
	}{
		{nil, "any"},
		{&huma.Schema{}, "any"},
		{&huma.Schema{Type: huma.TypeString, Format: "date-time", Nullable: true}, "nullable string (date-time)"},
		{&huma.Schema{Ref: "#/components/schemas/Entry"}, "Entry"},
		{&huma.Schema{Ref: "#/components/schemas/Kind"}, "string"},
		{&huma.Schema{Ref: "#/components/schemas/Gone"}, "Gone"},
		{&huma.Schema{Type: huma.TypeArray, Nullable: true, Items: &huma.Schema{Ref: "#/components/schemas/Entry"}}, "nullable array of Entry"},
		{&huma.Schema{Type: huma.TypeObject, AdditionalProperties: &huma.Schema{Type: huma.TypeArray, Items: str}}, "map of array of string"},
		{&huma.Schema{Type: huma.TypeArray, Items: &huma.Schema{OneOf: []*huma.Schema{str, {Type: huma.TypeInteger}}}}, "array of (string | integer)"},
		{&huma.Schema{Type: huma.TypeObject}, "object"},
	} {
		if got, want := w.label(c.schema, 0), c.want; got != want {
			t.Errorf("label: got %q, want %q", got, want)
		}
	}
}

func TestConstraints(t *testing.T) {
	lo, hi, n := 1.5, 10.0, 3
	s := &huma.Schema{Enum: []any{"x", 2}, Minimum: &lo, Maximum: &hi, MinLength: &n, Pattern: "^a", Default: map[string]any{"b": 1, "a": true}}
	got := constraints(s)
	want := []string{`enum: "x", 2`, "minimum: 1.5", "maximum: 10", "minLength: 3", "pattern: ^a", `default: {"a":true,"b":1}`}
	if got, want := len(got), len(want); got != want {
		t.Fatalf("constraints: got %d (%q), want %d", got, constraints(s), want)
	}
	for i := range want {
		if got, want := got[i], want[i]; got != want {
			t.Errorf("constraint %d: got %q, want %q", i, got, want)
		}
	}
}
