package pipeline

import "sync"

// nameFormsKept bounds the names whose forms a nameForms keeps: some ten
// users of ten years each. Past it the forms are let go and made again as
// names come.
const nameFormsKept = 20000

// nameForms keeps the forms in which offeredNames looks for each existing
// name in an entry (see forms): working them out again for every name of a
// long journal, for every entry, was most of the name shortlist's time.
// The forms depend on the name alone, so one nameForms serves every user.
type nameForms struct {
	mu   sync.Mutex
	kept map[string]forms
}

// forms are a name as mentions and mentionsForms compare it with a text.
type forms struct {
	folded string   // fold(name)
	words  []string // wordForms(name)
}

// of returns name's forms, kept from an earlier call when there was one.
// A nil nameForms keeps none.
func (n *nameForms) of(name string) forms {
	if n == nil {
		return formsOf(name)
	}
	n.mu.Lock()
	f, ok := n.kept[name]
	n.mu.Unlock()
	if ok {
		return f
	}
	f = formsOf(name)
	n.mu.Lock()
	if n.kept == nil || len(n.kept) >= nameFormsKept {
		n.kept = make(map[string]forms)
	}
	n.kept[name] = f
	n.mu.Unlock()
	return f
}

func formsOf(name string) forms {
	return forms{folded: fold(name), words: wordForms(name)}
}
