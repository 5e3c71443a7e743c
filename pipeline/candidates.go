package pipeline

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/recur-journal/recur/store"
)

// categoriesOffered bounds the existing categories of a kind that the
// categorise step is shown: beyond it, the most relevant to the new items,
// up to nearestEach for each item, so the prompt stays the same size
// however long the user has written.
const (
	categoriesOffered = 16
	nearestEach       = 8
)

// candidates returns the categories of a kind to offer, at most
// categoriesOffered: all of them when they are no more, otherwise the most
// relevant to the items, most relevant first. An item's own ranking puts
// the categories its name or situation mentions (in any form) first, then
// the rest by embedding, nearest first; the items' first choices are taken
// in turn, then their second ones, and so on, so every item has its
// nearest, and none more than nearestEach. Rejected categories are offered like the others: what means the
// same joins them, and they stay out of patterns.
func (r *runner) candidates(ctx context.Context, kind store.TagType, items []item) ([]store.Category, error) {
	cats := r.categories[kind]
	if len(cats) <= categoriesOffered {
		return cats, nil
	}
	texts := make([]string, len(items))
	for k, it := range items {
		texts[k] = it.name
	}
	vecs, err := r.embedCategories(ctx, cats, texts...)
	if err != nil {
		return nil, err
	}
	ranks := make([][]int, len(items))
	for k, it := range items {
		words := wordForms(it.name + " " + it.situation)
		said := make([]bool, len(cats))
		for i, c := range cats {
			said[i] = mentionsForms(words, c.Name)
		}
		ranks[k] = nearest(vecs[k], len(cats), func(i int) []float32 { return cats[i].Embedding }, len(cats))
		slices.SortStableFunc(ranks[k], func(a, b int) int {
			switch {
			case said[a] && !said[b]:
				return -1
			case said[b] && !said[a]:
				return 1
			}
			return 0
		})
	}
	chosen := map[int]bool{}
	var out []store.Category
	for depth := 0; depth < min(len(cats), nearestEach) && len(out) < categoriesOffered; depth++ {
		for k := 0; k < len(items) && len(out) < categoriesOffered; k++ {
			if i := ranks[k][depth]; !chosen[i] {
				chosen[i] = true
				out = append(out, cats[i])
			}
		}
	}
	return out, nil
}

// embedCategories embeds the names of the categories that have no
// embedding yet, stores them and sets them in cats, and returns the
// embeddings of the texts, made in the same call.
func (r *runner) embedCategories(ctx context.Context, cats []store.Category, texts ...string) ([][]float32, error) {
	var missing []int
	var inputs []string
	for i, c := range cats {
		if len(c.Embedding) == 0 {
			missing = append(missing, i)
			inputs = append(inputs, c.Name)
		}
	}
	if len(inputs)+len(texts) == 0 {
		return nil, nil
	}
	vecs, err := r.model.Embed(ctx, append(inputs, texts...))
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(inputs)+len(texts) {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", ErrTransient, len(vecs), len(inputs)+len(texts))
	}
	for j, i := range missing {
		cats[i].Embedding = vecs[j]
		if err := r.store.SetCategoryEmbedding(ctx, cats[i].ID, vecs[j]); err != nil {
			return nil, err
		}
	}
	return vecs[len(missing):], nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return -1
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return -1
	}
	return dot / math.Sqrt(na*nb)
}
