package store

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// parseVector reads every stored embedding as json.Unmarshal does: the
// vectors json.Marshal writes, and the odd texts json.Unmarshal takes or
// refuses.
func TestParseVectorReadsAsJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	texts := []string{"[]", "null", "[1]", "[ 1, 2 ]", "[1,2,]", "[Inf]", "[0x10]", "[1e400]", "[-0]", "[1.5e-45]", "[", "[1,,2]", "[\"1\"]", "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[1e+]", "[-]", "[1E+2,0.5e-3]", "[0,-0.0]"}
	for range 200 {
		v := make([]float32, rng.IntN(20))
		for i := range v {
			v[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10)))
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		got, gotErr := parseVector(text)
		want, wantErr := unmarshalVector(text)
		if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read as %v (%v), json.Unmarshal reads %v (%v)", text, got, gotErr, want, wantErr)
		}
	}
}
