package pipeline

import (
	"slices"
	"testing"
)

func TestMentions(t *testing.T) {
	t.Parallel()
	text := fold("Carmen's call came while I was at The  Canal.\nThen Dr. Yilmaz, and a café in Köln.")
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"Carmen", true},    // before a possessive
		{"carmen", true},    // whatever the case
		{"the canal", true}, // several words, spaces made one
		{"Dr. Yilmaz", true},
		{"café", true},
		{"köln", true},
		{"Car", false},  // part of a word
		{"anal", false}, // inside a word
		{"Carmen O", false},
		{"", false},
	} {
		if got := mentions(text, tc.name); got != tc.want {
			t.Errorf("mentions(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	vecs := [][]float32{{0, 1}, {1, 0}, {1, 1}, {-1, 0}, {1, 0}}
	got := nearest([]float32{1, 0}, len(vecs), func(i int) []float32 { return vecs[i] }, 3)
	if want := []int{1, 4, 2}; !slices.Equal(got, want) {
		t.Errorf("nearest = %v, want %v (most similar first, ties in order)", got, want)
	}
	if got := nearest([]float32{1, 0}, 2, func(i int) []float32 { return vecs[i] }, 8); len(got) != 2 {
		t.Errorf("nearest of 2 with room for 8 = %v, want both", got)
	}
}

func TestMentionsForms(t *testing.T) {
	t.Parallel()
	words := wordForms("I cooked dinner at home, then went running. Mika's plans were off.")
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"cooking", true},
		{"cooking dinner", true},
		{"homes", true},
		{"run", true},
		{"plan", true},
		{"Mika", true},
		{"cook lunch", false}, // not in a row
		{"dinner home", false},
		{"bed", false},
		{"", false},
	} {
		if got := mentionsForms(words, tc.name); got != tc.want {
			t.Errorf("mentionsForms(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
