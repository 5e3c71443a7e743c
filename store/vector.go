package store

import (
	"encoding/json"
	"strconv"
	"strings"
)

// parseVector reads an embedding stored as a JSON array of numbers, as
// json.Unmarshal reads it into a []float32, and as fast as a plain list
// allows: every analysed entry reads its writer's categories with theirs,
// and json.Unmarshal was most of that read. Anything but a plain list
// ("[1,-2.5e-3]") goes to json.Unmarshal.
func parseVector(s string) ([]float32, error) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' || len(s) == 2 {
		return unmarshalVector(s)
	}
	body := s[1 : len(s)-1]
	out := make([]float32, 0, strings.Count(body, ",")+1)
	for part := range strings.SplitSeq(body, ",") {
		if !plainNumber(part) {
			return unmarshalVector(s)
		}
		f, err := strconv.ParseFloat(part, 32)
		if err != nil {
			return unmarshalVector(s)
		}
		out = append(out, float32(f))
	}
	return out, nil
}

// plainNumber reports whether s is a number as JSON writes one:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (strconv takes more, such
// as "Inf", "+1" or "01").
func plainNumber(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	if n := digits(); n == 0 || (n > 1 && s[i-n] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func unmarshalVector(s string) ([]float32, error) {
	var v []float32
	err := json.Unmarshal([]byte(s), &v)
	return v, err
}
