package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recur-journal/recur/store"
)

// Step names, as recorded against each model call.
const (
	StepTranslate  = "translate"
	StepSegment    = "segment"
	StepExtract    = "extract"
	StepCategorise = "categorise"
)

// unusable is output that parses or validates wrongly: the model's fault,
// retried, then the capture fails.
type unusable struct{ reason string }

func (u *unusable) Error() string { return "unusable model output: " + u.reason }

func unusablef(format string, args ...any) error { return &unusable{fmt.Sprintf(format, args...)} }

// decode checks a model answer against the schema it was asked to follow,
// every bound included, then parses it into v. An answer that breaks the
// schema is unusable: it is asked for again, and finally fails the run.
func decode(content string, s *schema, v any) error {
	if err := s.checkAnswer(content); err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return unusablef("not the JSON asked for: %v", err)
	}
	return nil
}

// prompt assembles a system prompt: the instructions, then the schema the
// answer must follow. Ollama does not put the schema in the prompt itself.
func prompt(instructions string, schema json.RawMessage) string {
	return strings.TrimSpace(instructions) + "\n\nAnswer with only a JSON object following this schema:\n" + string(schema)
}

// --- Translate ---

// An entry that needs translating is translated and cut into situations in
// one answer: its English comes in parts, in order, each marked as telling
// one situation or none. The translated text is the parts joined, so each
// situation is a verbatim slice of it by construction. The prompt says what
// the parts are; the schema describes only what the prompt does not.
var translateSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"language":{"type":"string","description":"ISO 639-1 code of the entry's language"},` +
	`"parts":{"type":"array","items":{"type":"object","properties":{` +
	`"text":{"type":"string"},` +
	`"kind":{"type":"string","enum":["situation","other"]}},` +
	`"required":["text","kind"],"additionalProperties":false}}},` +
	`"required":["language","parts"],"additionalProperties":false}`)

var translateChecks = mustParseSchema(translateSchema)

var translateSystem = prompt(`You translate personal journal entries into natural English, cut into parts.
Keep every detail, the first person, the order of events, and the sentence and line breaks. Do not summarise, explain or add.
Keep names of people and places, and the words the writer calls family by, untranslated, as written:
"Mamá" stays "Mamá", "la abuela" becomes "abuela" ("I called abuela"), "Oma" stays "Oma".
Give the translation as parts, in the entry's order; together they are the whole translation, each sentence in one part.
`+situationRules+`
A part's kind is "situation" when its text tells one situation, "other" when its sentences belong to none.`, translateSchema)

type translateAnswer struct {
	Language string          `json:"language"`
	Parts    []translatePart `json:"parts"`
	// Translation is the parts joined; Situations the ranges of the
	// situation parts in it.
	Translation string `json:"-"`
	Situations  []span `json:"-"`
}

// accept reads a translate answer for original into a. It returns
// unusable output when the answer breaks its schema, is empty, or is far
// longer or shorter than the original.
func (a *translateAnswer) accept(content, original string) error {
	if err := decode(content, translateChecks, a); err != nil {
		return err
	}
	return a.validate(original)
}

func (a *translateAnswer) validate(original string) error {
	a.Language = strings.ToLower(strings.TrimSpace(a.Language))
	var b strings.Builder
	a.Situations = nil
	breaks := partBreaks(a.Parts, original)
	for i, p := range a.Parts {
		text := strings.TrimSpace(p.Text)
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(breaks[i])
		}
		if p.Kind == "situation" {
			a.Situations = append(a.Situations, span{b.Len(), b.Len() + len(text)})
		}
		b.WriteString(text)
	}
	a.Translation = b.String()
	if a.Translation == "" {
		return unusablef("empty translation")
	}
	// A translation a fifth or five times the length of the original is
	// a summary or a ramble, not a translation.
	n, m := utf8.RuneCountInString(original), utf8.RuneCountInString(a.Translation)
	if m*5 < n || m > n*5+50 {
		return unusablef("translation of %d characters for an entry of %d", m, n)
	}
	// Only an ISO 639-1 code is kept: two letters a to z.
	if len(a.Language) != 2 || a.Language[0] < 'a' || a.Language[0] > 'z' || a.Language[1] < 'a' || a.Language[1] > 'z' {
		a.Language = ""
	}
	return nil
}

type translatePart struct {
	Text string `json:"text"`
	Kind string `json:"kind"`
}

// partBreaks is what goes before each part when the parts are joined, so
// that the entry keeps its line breaks: the break the model wrote around
// the seam, or else, when the parts hold as many sentences as the original,
// the original's break between the sentences the seam falls between; a
// space when there is none. Only what lies between parts is chosen, so each
// part's text stays as the model wrote it.
func partBreaks(parts []translatePart, original string) []string {
	sentences := splitSentences(original)
	ends := make([]int, len(parts)) // the sentences up to the end of each part
	n := 0
	for i, p := range parts {
		n += len(splitSentences(p.Text))
		ends[i] = n
	}
	aligned := n == len(sentences)
	out := make([]string, len(parts))
	prev := -1
	for i, p := range parts {
		if strings.TrimSpace(p.Text) == "" {
			continue
		}
		if prev >= 0 {
			seam := parts[prev].Text[len(strings.TrimRightFunc(parts[prev].Text, unicode.IsSpace)):] +
				p.Text[:len(p.Text)-len(strings.TrimLeftFunc(p.Text, unicode.IsSpace))]
			if k := ends[prev]; !strings.Contains(seam, "\n") && aligned && k > 0 && k < len(sentences) {
				seam = original[sentences[k-1].End:sentences[k].Start]
			}
			out[i] = lineBreak(seam)
		}
		prev = i
	}
	return out
}

// lineBreak is what the space at a seam comes down to: a paragraph break
// for two line breaks or more, a line break for one, else a space.
func lineBreak(space string) string {
	switch strings.Count(space, "\n") {
	case 0:
		return " "
	case 1:
		return "\n"
	}
	return "\n\n"
}

// --- Segment ---

var segmentSchema = json.RawMessage(`{"type":"object","properties":{"situations":{"type":"array","items":{` +
	`"type":"object","properties":{"first":{"type":"integer","minimum":1},"last":{"type":"integer","minimum":1}},` +
	`"required":["first","last"],"additionalProperties":false}}},"required":["situations"],"additionalProperties":false}`)

var segmentChecks = mustParseSchema(segmentSchema)

// situationRules says what a situation is, for every step that finds them.
const situationRules = `A situation is one thing that happened to the writer, told by consecutive sentences: the lead-in that sets
the scene, what set it off, how the writer felt and reacted, what they did about it, and their plans about it. A new one begins
where the entry turns to something else; an entry about one thing is one situation. Sentences about nothing that happened
(greetings, the date, filler, a closing line on the whole day) belong to none; an entry where
nothing happened has no situations.`

var segmentSystem = prompt(`You read a personal journal entry given as numbered sentences and find its situations.
`+situationRules+`
Give each situation as the range of its sentences: the number of its first and its last sentence. With no situations, answer {"situations":[]}.`, segmentSchema)

type segmentAnswer struct {
	Situations []sentenceRange `json:"situations"`
}

// sentenceRange is a situation given as the numbers of its first and last
// sentence.
type sentenceRange struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// numbered renders sentences as "[n] text" lines.
func numbered(text string, sentences []span) string {
	var b strings.Builder
	for i, s := range sentences {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, strings.ReplaceAll(text[s.Start:s.End], "\n", " "))
	}
	return b.String()
}

// acceptSegments reads a segment answer and cuts the situations it names
// out of the sentences. It returns unusable output when the answer breaks
// its schema or names sentences that do not exist, out of order or twice.
func acceptSegments(content string, sentences []span) ([]span, error) {
	var ans segmentAnswer
	if err := decode(content, segmentChecks, &ans); err != nil {
		return nil, err
	}
	return ans.cut(sentences)
}

// cut turns the answer into byte ranges of the text. The ranges come from
// the sentences, never from text the model wrote.
func (a *segmentAnswer) cut(sentences []span) ([]span, error) {
	var out []span
	prev := 0
	for _, s := range a.Situations {
		if s.First < 1 || s.Last < s.First || s.Last > len(sentences) {
			return nil, unusablef("situation %d-%d outside sentences 1-%d", s.First, s.Last, len(sentences))
		}
		if s.First <= prev {
			return nil, unusablef("situation %d-%d overlaps or is out of order", s.First, s.Last)
		}
		out = append(out, span{sentences[s.First-1].Start, sentences[s.Last-1].End})
		prev = s.Last
	}
	return out, nil
}

// --- Extract ---

// extractSchema is the extract answer's schema. Feelings carry no enum: the
// vocabulary is listed in the prompt, and a word outside it is mapped through
// feelingSynonyms or dropped rather than failing the answer, so an enum here
// would state a bound the answer is not held to ("Anxious" and "glad" are
// accepted). The schema states only what is checked: at most four feelings,
// each a string. It takes the vocabulary, which it does not use, so that
// callers need not know this.
func extractSchema([]store.Feeling) json.RawMessage {
	// A tag name of more than 80 characters is a sentence, not a name.
	list := `{"type":"array","items":{"type":"string","maxLength":80},"maxItems":6}`
	return json.RawMessage(`{"type":"object","properties":{"situations":{"type":"array","items":{"type":"object","properties":{` +
		`"situation":{"type":"integer","minimum":1},` +
		`"feelings":{"type":"array","items":{"type":"string"},"maxItems":4},` +
		`"triggers":` + list + `,"good_behaviours":` + list + `,"bad_behaviours":` + list + `,` +
		`"persons":` + list + `,"locations":` + list + `,"activities":` + list +
		`},"required":["situation","feelings","triggers","good_behaviours","bad_behaviours","persons","locations","activities"],` +
		`"additionalProperties":false}}},"required":["situations"],"additionalProperties":false}`)
}

func extractSystem(feelings []store.Feeling, schema json.RawMessage) string {
	var pleasant, unpleasant, mixed []string
	for _, f := range feelings {
		switch {
		case f.Valence > 0:
			pleasant = append(pleasant, f.Name)
		case f.Valence < 0:
			unpleasant = append(unpleasant, f.Name)
		default:
			mixed = append(mixed, f.Name)
		}
	}
	return prompt(`You read the numbered situations of a personal journal entry and note, for each situation:
- feelings: up to four the writer had, each exactly as in this list, or else the nearest it has.
  Pleasant: `+strings.Join(pleasant, ", ")+`.
  Unpleasant: `+strings.Join(unpleasant, ", ")+`.
  Mixed (both at once): `+strings.Join(mixed, ", ")+`.
- triggers: what set the feelings off, as a short noun phrase ("criticism from my boss", "a late train"); not what
  merely happened nearby, nor a plan told with no feeling.
- good_behaviours: what the writer did that helped them or others ("went for a run", "asked for help").
- bad_behaviours: what the writer did that harmed them or others ("skipped lunch", "shouted at my partner").
  An act the writer chose and enjoyed is a good behaviour only, never also a trigger.
- persons: people present or involved, by the name or role the entry uses ("Anna", "my boss").
  One person, one name: when the writer already has a name for this person, use it however the entry calls them
  ("Mamá", "my mother", "Carmen Ortega"). Family words stay as written ("abuela").
- locations: places ("the office", "home").
- activities: what the writer was doing ("commuting", "cooking").
Use short names in lower case, except proper names. Where the writer already has a name for the same thing, use that exact name.
Note only what the situation says; a list may stay empty.`, schema)
}

type extractAnswer struct {
	Situations []extractedSituation `json:"situations"`
}

type extractedSituation struct {
	Situation      int      `json:"situation"`
	Feelings       []string `json:"feelings"`
	Triggers       []string `json:"triggers"`
	GoodBehaviours []string `json:"good_behaviours"`
	BadBehaviours  []string `json:"bad_behaviours"`
	Persons        []string `json:"persons"`
	Locations      []string `json:"locations"`
	Activities     []string `json:"activities"`
}

// lists pairs each named list of a situation with its tag type.
func (s *extractedSituation) lists() []struct {
	typ   store.TagType
	names []string
} {
	return []struct {
		typ   store.TagType
		names []string
	}{
		{store.TagTrigger, s.Triggers}, {store.TagGoodBehaviour, s.GoodBehaviours}, {store.TagBadBehaviour, s.BadBehaviours},
		{store.TagPerson, s.Persons}, {store.TagLocation, s.Locations}, {store.TagActivity, s.Activities},
	}
}

// known holds the user's existing tag names by type, keyed in lower case,
// so a new mention takes the spelling the user already has.
type known map[store.TagType]map[string]*store.Tag

// knownOf returns the tags known, each map made to its size at once: ten
// years of names are some 1,900, and growing the maps to hold them for
// every entry was a sixth of what an entry allocated.
func knownOf(tags []store.Tag) known {
	sizes := map[store.TagType]int{}
	for _, t := range tags {
		sizes[t.Type]++
	}
	k := make(known, len(sizes))
	for typ, n := range sizes {
		k[typ] = make(map[string]*store.Tag, n)
	}
	for i := range tags {
		k.add(&tags[i])
	}
	return k
}

// add makes t known; the map keeps t itself, not a copy.
func (k known) add(t *store.Tag) {
	if k[t.Type] == nil {
		k[t.Type] = map[string]*store.Tag{}
	}
	k[t.Type][strings.ToLower(t.Name)] = t
}

// acceptExtract reads an extract answer for the given number of segments
// against its schema, and returns each segment's tags (see tags). It
// returns unusable output when the answer breaks the schema or names a
// situation that does not exist.
func acceptExtract(content string, schema json.RawMessage, segments int, feelings map[string]store.Feeling, names known) ([][]store.NewTag, error) {
	checks, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	var ans extractAnswer
	if err := decode(content, checks, &ans); err != nil {
		return nil, err
	}
	return ans.tags(segments, feelings, names)
}

// tags validates the answer and returns each segment's tags, names
// normalised against the user's existing ones. A feeling is looked up in
// the vocabulary in any case and spacing, then through feelingSynonyms; a
// word found in neither is dropped and never makes the answer unusable.
func (a *extractAnswer) tags(segments int, feelings map[string]store.Feeling, names known) ([][]store.NewTag, error) {
	vocabulary := make(map[string]store.Feeling, len(feelings))
	for _, f := range feelings {
		vocabulary[feelingKey(f.Name)] = f
	}
	out := make([][]store.NewTag, segments)
	seen := make([]bool, segments)
	for _, s := range a.Situations {
		i := s.Situation - 1
		if i < 0 || i >= segments {
			return nil, unusablef("situation %d of %d", s.Situation, segments)
		}
		if seen[i] {
			return nil, unusablef("situation %d given twice", s.Situation)
		}
		seen[i] = true
		dup := map[string]bool{}
		for _, f := range s.Feelings {
			fl, ok := lookupFeeling(f, vocabulary)
			if !ok {
				continue
			}
			if !dup["feeling\x00"+fl.ID] {
				dup["feeling\x00"+fl.ID] = true
				out[i] = append(out[i], store.NewTag{Type: fl.TagType(), Name: fl.Name, FeelingID: fl.ID})
			}
		}
		for _, l := range s.lists() {
			for _, name := range l.names {
				name = strings.Join(strings.Fields(name), " ")
				if name == "" {
					continue
				}
				if t, ok := names[l.typ][strings.ToLower(name)]; ok {
					name = t.Name
				}
				key := string(l.typ) + "\x00" + strings.ToLower(name)
				if !dup[key] {
					dup[key] = true
					out[i] = append(out[i], store.NewTag{Type: l.typ, Name: name})
				}
			}
		}
	}
	return out, nil
}
