package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// schema is the part of JSON Schema that the answer schemas use. Answers
// are checked against the very schema sent to the model, parsed into this
// shape, so what is asked for and what is accepted cannot drift apart. A
// keyword it does not know is refused when the schema is parsed, so a
// schema cannot state a bound that goes unchecked.
type schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	MinItems             *int               `json:"minItems"`
	MaxItems             *int               `json:"maxItems"`
	MinLength            *int               `json:"minLength"`
	MaxLength            *int               `json:"maxLength"`
	Enum                 []string           `json:"enum"`
	Minimum              *int64             `json:"minimum"`
	Maximum              *int64             `json:"maximum"`
	// Pattern is a regular expression a string must match somewhere, as in
	// JSON Schema. It is compiled with Go's regexp (RE2), so a pattern
	// using what RE2 lacks (lookaround, backreferences) is refused when the
	// schema is parsed rather than checked differently from how it reads.
	Pattern *string        `json:"pattern"`
	re      *regexp.Regexp // Pattern, compiled by wellFormed
}

// parseSchema reads a schema, refusing keywords, types and combinations
// that check does not enforce.
func parseSchema(raw json.RawMessage) (*schema, error) {
	var s schema
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("answer schema: %w", err)
	}
	if err := s.wellFormed("answer"); err != nil {
		return nil, err
	}
	return &s, nil
}

// mustParseSchema is parseSchema for the fixed schemas, checked at start.
func mustParseSchema(raw json.RawMessage) *schema {
	s, err := parseSchema(raw)
	if err != nil {
		panic(err)
	}
	return s
}

func (s *schema) wellFormed(path string) error {
	allowed := map[string]bool{}
	switch s.Type {
	case "object":
		allowed["properties"], allowed["required"], allowed["additionalProperties"] = true, true, true
	case "array":
		allowed["items"], allowed["minItems"], allowed["maxItems"] = true, true, true
	case "string":
		allowed["minLength"], allowed["maxLength"], allowed["enum"], allowed["pattern"] = true, true, true, true
	case "integer":
		allowed["minimum"], allowed["maximum"] = true, true
	default:
		return fmt.Errorf("answer schema: %s has type %q, which answers are not checked against", path, s.Type)
	}
	used := map[string]bool{
		"properties": s.Properties != nil, "required": s.Required != nil, "additionalProperties": s.AdditionalProperties != nil,
		"items": s.Items != nil, "minItems": s.MinItems != nil, "maxItems": s.MaxItems != nil,
		"minLength": s.MinLength != nil, "maxLength": s.MaxLength != nil, "enum": s.Enum != nil,
		"minimum": s.Minimum != nil, "maximum": s.Maximum != nil, "pattern": s.Pattern != nil,
	}
	for k, on := range used {
		if on && !allowed[k] {
			return fmt.Errorf("answer schema: %s is a %s with %s, which answers are not checked against", path, s.Type, k)
		}
	}
	if s.Pattern != nil && s.Type == "string" {
		re, err := regexp.Compile(*s.Pattern)
		if err != nil {
			return fmt.Errorf("answer schema: %s has a pattern Go cannot check: %w", path, err)
		}
		s.re = re
	}
	if s.Type == "array" && s.Items == nil {
		return fmt.Errorf("answer schema: %s is an array without items", path)
	}
	for _, name := range s.Required {
		if s.Properties[name] == nil {
			return fmt.Errorf("answer schema: %s requires %q, which it does not describe", path, name)
		}
	}
	for name, p := range s.Properties {
		if p == nil {
			return fmt.Errorf("answer schema: %s.%s is null", path, name)
		}
		if err := p.wellFormed(path + "." + name); err != nil {
			return err
		}
	}
	if s.Items != nil {
		return s.Items.wellFormed(path + "[]")
	}
	return nil
}

// checkAnswer parses content as one JSON value and checks it against s.
// Anything that breaks the schema is unusable output.
func (s *schema) checkAnswer(content string) error {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return unusablef("not JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return unusablef("more than one JSON value")
	}
	return s.check("answer", v)
}

func (s *schema) check(path string, v any) error {
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return unusablef("%s is %s, not an object", path, kindOf(v))
		}
		for _, name := range s.Required {
			if _, ok := obj[name]; !ok {
				return unusablef("%s lacks %q", path, name)
			}
		}
		// Sorted, so the same answer is always refused for the same reason.
		names := make([]string, 0, len(obj))
		for name := range obj {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			p, ok := s.Properties[name]
			if !ok {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					return unusablef("%s has %s, which the schema does not allow", path, brief(name))
				}
				continue
			}
			if err := p.check(path+"."+name, obj[name]); err != nil {
				return err
			}
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return unusablef("%s is %s, not an array", path, kindOf(v))
		}
		if s.MinItems != nil && len(list) < *s.MinItems {
			return unusablef("%s has %d items, at least %d asked for", path, len(list), *s.MinItems)
		}
		if s.MaxItems != nil && len(list) > *s.MaxItems {
			return unusablef("%s has %d items, at most %d allowed", path, len(list), *s.MaxItems)
		}
		for i, item := range list {
			if err := s.Items.check(fmt.Sprintf("%s[%d]", path, i), item); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return unusablef("%s is %s, not a string", path, kindOf(v))
		}
		// JSON Schema counts lengths in characters (code points).
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			return unusablef("%s has %d characters, at least %d asked for", path, n, *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return unusablef("%s has %d characters, at most %d allowed", path, n, *s.MaxLength)
		}
		if s.re != nil && !s.re.MatchString(str) {
			return unusablef("%s is %s, which does not match the pattern %s", path, brief(str), *s.Pattern)
		}
		if s.Enum != nil && !slices.Contains(s.Enum, str) {
			return unusablef("%s is %s, which is not one of the %d allowed values", path, brief(str), len(s.Enum))
		}
	case "integer":
		num, ok := v.(json.Number)
		if !ok {
			return unusablef("%s is %s, not an integer", path, kindOf(v))
		}
		n, err := num.Int64()
		if err != nil {
			return unusablef("%s is %s, not an integer", path, brief(num.String()))
		}
		if s.Minimum != nil && n < *s.Minimum {
			return unusablef("%s is %d, at least %d asked for", path, n, *s.Minimum)
		}
		if s.Maximum != nil && n > *s.Maximum {
			return unusablef("%s is %d, at most %d allowed", path, n, *s.Maximum)
		}
	}
	return nil
}

// brief quotes s for a log line, cut short: a refused answer may be huge.
func brief(s string) string {
	const most = 40
	if utf8.RuneCountInString(s) <= most {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", string([]rune(s)[:most]))
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
