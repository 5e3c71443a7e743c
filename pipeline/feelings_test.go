package pipeline

import (
	"context"
	"slices"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// A feeling word the model writes in another case, or a synonym of a
// vocabulary feeling, counts as that feeling; a word that is neither is
// dropped; none of them makes the answer unusable.
func TestExtractFeelingWords(t *testing.T) {
	t.Parallel()
	feelings := vocabulary()
	content := `{"situations":[` +
		situationJSON(1, map[string]any{"feelings": []string{"Happy"}}) + `,` +
		situationJSON(2, map[string]any{"feelings": []string{"glad", " CALM "}}) + `,` +
		situationJSON(3, map[string]any{"feelings": []string{"über-happy", "Happy", "glad"}}) + `]}`
	tags, err := acceptExtract(content, extractSchema(feelings), 3, feelingsByName(feelings), known{})
	if err != nil {
		t.Fatalf("the answer is refused: %v", err)
	}
	for i, want := range [][]string{{"f-happy"}, {"f-happy", "f-calm"}, {"f-happy"}} {
		var got []string
		for _, tag := range tags[i] {
			if tag.Type != store.TagPositiveFeeling || tag.Name != feelingsByName(feelings)[tag.Name].Name {
				t.Errorf("situation %d: tag %+v is not a vocabulary feeling", i+1, tag)
			}
			got = append(got, tag.FeelingID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("situation %d: feelings %v, want %v", i+1, got, want)
		}
	}
}

// Every synonym leads to a feeling of the shipped vocabulary, is itself no
// vocabulary word (the vocabulary would win), and is written in the form it
// is looked up by.
func TestFeelingSynonyms(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	list, err := s.Feelings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	vocab := map[string]bool{}
	for _, f := range list {
		if feelingKey(f.Name) != f.Name {
			t.Errorf("vocabulary name %q is not in lookup form", f.Name)
		}
		vocab[f.Name] = true
	}
	for word, name := range feelingSynonyms {
		switch {
		case !vocab[name]:
			t.Errorf("synonym %q leads to %q, which is not in the vocabulary", word, name)
		case vocab[word]:
			t.Errorf("synonym %q is a vocabulary word", word)
		case feelingKey(word) != word:
			t.Errorf("synonym %q is not in lookup form %q", word, feelingKey(word))
		}
	}
	vocabulary := map[string]store.Feeling{}
	for _, f := range list {
		vocabulary[f.Name] = f
	}
	for word, want := range map[string]string{"Anxious": "anxious", "  angry   AT myself.": "angry at myself", "Mad at myself": "angry at myself", "glad!": "happy"} {
		if f, ok := lookupFeeling(word, vocabulary); !ok || f.Name != want {
			t.Errorf("%q is %q (%v), want %q", word, f.Name, ok, want)
		}
	}
}
