package apidocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

const (
	// maxDepth is how many levels of nested fields are listed.
	maxDepth = 6
	// maxRefHops bounds chains of $refs and of wrapper types.
	maxRefHops = 8
)

// schemaView is a schema as the page shows it.
type schemaView struct {
	Label       string
	Description []block
	Flags       []string
	Constraints []string
	// Props are the fields of the object, of the array's items or of the
	// map's values, by name.
	Props []propView
	// Recursive names the schema whose fields are already listed above.
	Recursive string
	// Truncated is set when the fields are nested too deeply to list.
	Truncated bool
}

// propView is a field of an object.
type propView struct {
	Name     string
	Required bool
	Schema   *schemaView
}

// schemaWalker renders schemas, resolving $refs through reg, which may be
// nil.
type schemaWalker struct {
	reg huma.Registry
}

// resolve follows the $refs of s. It returns the name of the last schema
// referred to ("" when s is inline) and the schema itself, or nil when a
// reference cannot be resolved.
func (w schemaWalker) resolve(s *huma.Schema) (string, *huma.Schema) {
	name := ""
	for i := 0; s != nil && s.Ref != "" && i < maxRefHops; i++ {
		name = refName(s.Ref)
		if w.reg == nil {
			return name, nil
		}
		s = w.reg.SchemaFromRef(s.Ref)
	}
	return name, s
}

// view returns the page's view of s. seen holds the object schemas whose
// fields are being listed by the callers, to stop at recursion.
func (w schemaWalker) view(s *huma.Schema, depth int, seen []*huma.Schema) *schemaView {
	v := &schemaView{Label: w.label(s, 0)}
	if s == nil {
		return v
	}
	name, t := w.resolve(s)
	desc := s.Description
	if t == nil {
		v.Description = blocks(desc)
		return v
	}
	if desc == "" {
		desc = t.Description
	}
	v.Description = blocks(desc)
	v.Flags = flags(s, t)
	v.Constraints = constraints(t)
	if s.Default != nil && t.Default == nil {
		v.Constraints = append(v.Constraints, "default: "+formatValue(s.Default))
	}

	name, obj := w.fieldsOf(name, t)
	if obj == nil {
		return v
	}
	if slices.Contains(seen, obj) {
		v.Recursive = name
		if v.Recursive == "" {
			v.Recursive = "this object"
		}
		return v
	}
	if depth >= maxDepth {
		v.Truncated = true
		return v
	}
	seen = append(slices.Clip(seen), obj)
	for _, key := range sortedKeys(obj.Properties) {
		v.Props = append(v.Props, propView{
			Name:     key,
			Required: slices.Contains(obj.Required, key),
			Schema:   w.view(obj.Properties[key], depth+1, seen),
		})
	}
	return v
}

// fieldsOf returns the object whose fields describe t, which is named name
// (or ""): t itself, the items of an array or the values of a map, following
// $refs. It returns nil when there are no fields to list, and the name of
// the object when it has one.
func (w schemaWalker) fieldsOf(name string, t *huma.Schema) (string, *huma.Schema) {
	for i := 0; t != nil && i < maxRefHops; i++ {
		if len(t.Properties) > 0 {
			return name, t
		}
		next := t.Items
		if t.Type != huma.TypeArray {
			next, _ = t.AdditionalProperties.(*huma.Schema)
		}
		if next == nil {
			return "", nil
		}
		name, t = w.resolve(next)
	}
	return "", nil
}

// label returns a short type for s, such as "string (date-time)", "array of
// Entry", "map of integer" or "nullable integer". Objects with a name are
// shown by name.
func (w schemaWalker) label(s *huma.Schema, depth int) string {
	if s == nil {
		return "any"
	}
	if depth > maxRefHops {
		return "…"
	}
	if s.Ref != "" {
		name, t := w.resolve(s)
		if t == nil || isObject(t) {
			return name
		}
		return w.label(t, depth+1)
	}
	var l string
	switch {
	case s.Type == huma.TypeArray:
		l = "array"
		if s.Items != nil {
			l = "array of " + group(w.label(s.Items, depth+1))
		}
	case s.Type == huma.TypeObject:
		l = "object"
		if ap, ok := s.AdditionalProperties.(*huma.Schema); ok && ap != nil && len(s.Properties) == 0 {
			l = "map of " + group(w.label(ap, depth+1))
		}
	case s.Type != "":
		l = s.Type
	case len(s.OneOf) > 0:
		l = w.join(s.OneOf, " | ", depth)
	case len(s.AnyOf) > 0:
		l = w.join(s.AnyOf, " | ", depth)
	case len(s.AllOf) > 0:
		l = w.join(s.AllOf, " & ", depth)
	case len(s.Properties) > 0:
		l = "object"
	default:
		l = "any"
	}
	if s.Format != "" && s.Type != huma.TypeArray && s.Type != huma.TypeObject {
		l += " (" + s.Format + ")"
	}
	if s.Nullable {
		l = "nullable " + group(l)
	}
	return l
}

// group wraps a label made of alternatives in parentheses, so that a prefix
// such as "array of" applies to all of them.
func group(l string) string {
	if strings.Contains(l, " | ") || strings.Contains(l, " & ") {
		return "(" + l + ")"
	}
	return l
}

func (w schemaWalker) join(list []*huma.Schema, sep string, depth int) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = w.label(s, depth+1)
	}
	return strings.Join(parts, sep)
}

// isObject reports whether s is shown by name rather than by type.
func isObject(s *huma.Schema) bool {
	return s.Type == huma.TypeObject || s.Type == "" && len(s.Properties) > 0
}

// flags lists the read-only, write-only and deprecated markers of a
// schema, looking at both the referring schema s and its target t.
func flags(s, t *huma.Schema) []string {
	var out []string
	if s.ReadOnly || t.ReadOnly {
		out = append(out, "read-only")
	}
	if s.WriteOnly || t.WriteOnly {
		out = append(out, "write-only")
	}
	if s.Deprecated || t.Deprecated {
		out = append(out, "deprecated")
	}
	return out
}

// constraints lists the validation keywords of s as "keyword: value".
func constraints(s *huma.Schema) []string {
	var out []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = formatValue(e)
		}
		out = append(out, "enum: "+strings.Join(vals, ", "))
	}
	num := func(key string, v *float64) {
		if v != nil {
			out = append(out, key+": "+strconv.FormatFloat(*v, 'f', -1, 64))
		}
	}
	count := func(key string, v *int) {
		if v != nil {
			out = append(out, key+": "+strconv.Itoa(*v))
		}
	}
	num("minimum", s.Minimum)
	num("exclusiveMinimum", s.ExclusiveMinimum)
	num("maximum", s.Maximum)
	num("exclusiveMaximum", s.ExclusiveMaximum)
	num("multipleOf", s.MultipleOf)
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	if s.Pattern != "" {
		p := "pattern: " + s.Pattern
		if s.PatternDescription != "" {
			p += " (" + s.PatternDescription + ")"
		}
		out = append(out, p)
	}
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	if s.UniqueItems {
		out = append(out, "uniqueItems")
	}
	count("minProperties", s.MinProperties)
	count("maxProperties", s.MaxProperties)
	if s.Default != nil {
		out = append(out, "default: "+formatValue(s.Default))
	}
	return out
}

// formatValue writes v as JSON, so strings are quoted and maps sorted.
func formatValue(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// refName returns the last segment of a $ref such as
// "#/components/schemas/Entry".
func refName(ref string) string {
	return ref[strings.LastIndex(ref, "/")+1:]
}
