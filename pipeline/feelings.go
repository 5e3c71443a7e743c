package pipeline

import (
	"strings"
	"unicode"

	"github.com/recur-journal/recur/store"
)

// feelingSynonyms maps feeling words that are not in the vocabulary to the
// vocabulary feeling of the same meaning. The extract step lists the
// vocabulary in its prompt, but models write what people write ("glad",
// "scared", "mad at myself"); a word found here counts as its feeling, a
// word found neither here nor in the vocabulary is dropped, and neither
// makes the answer unusable. Keys are normalised (see feelingKey); a word
// of the vocabulary itself never needs an entry, and one whose feeling the
// database lacks is dropped like any unknown word.
var feelingSynonyms = map[string]string{
	// pleasant, high energy
	"glad": "happy", "great": "happy", "happiness": "happy", "good mood": "happy",
	"thrilled": "excited", "pumped": "excited", "looking forward": "excited",
	"elated": "joyful", "joy": "joyful", "overjoyed": "joyful", "ecstatic": "delighted",
	"cheery": "cheerful", "upbeat": "cheerful",
	"optimistic": "hopeful", "eager": "enthusiastic", "keen": "enthusiastic",
	"energetic": "energized", "energised": "energized",
	"accomplished": "proud", "sure of myself": "confident", "self-assured": "confident",
	"driven": "motivated", "focused": "determined", "resolved": "determined", "resolute": "determined",
	"interested": "curious", "entertained": "amused", "astonished": "surprised",
	// pleasant, low energy
	"good": "content", "fine": "content", "pleased": "satisfied", "fulfilled": "satisfied",
	"at ease": "relaxed", "chill": "relaxed", "chilled": "relaxed", "at peace": "peaceful",
	"tranquil": "serene", "thankful": "grateful", "appreciative": "grateful", "blessed": "grateful",
	"reassured": "relieved", "relief": "relieved", "refreshed": "rested",
	"loving": "loved", "cared for": "loved", "close": "connected", "included": "connected",
	// unpleasant, high energy
	"mad": "angry", "furious": "angry", "livid": "angry", "enraged": "angry", "resentful": "angry", "bitter": "angry",
	"cross": "annoyed", "irritable": "irritated", "grumpy": "irritated",
	"impatient": "frustrated", "fed up": "frustrated", "exasperated": "frustrated",
	"scared": "afraid", "frightened": "afraid", "fearful": "afraid", "terrified": "afraid",
	"panicky": "panicked", "panic": "panicked",
	"uneasy": "anxious", "apprehensive": "anxious", "anxiety": "anxious",
	"stress": "stressed", "stressed out": "stressed", "under pressure": "stressed", "pressured": "stressed",
	"on edge": "tense", "wound up": "tense", "agitated": "restless",
	"concerned": "worried", "troubled": "worried",
	"overloaded": "overwhelmed", "swamped": "overwhelmed",
	"envious": "jealous", "self-conscious": "embarrassed", "awkward": "embarrassed",
	"suspicious": "wary", "cautious": "wary", "distrustful": "wary", "guarded": "wary",
	"angry with myself": "angry at myself", "mad at myself": "angry at myself", "furious with myself": "angry at myself",
	"annoyed with myself": "angry at myself", "annoyed at myself": "angry at myself", "frustrated with myself": "angry at myself",
	"cross with myself": "angry at myself", "self-critical": "angry at myself", "angry at oneself": "angry at myself",
	"self-directed anger": "angry at myself",
	// unpleasant, low energy
	"unhappy": "sad", "down": "sad", "low": "sad", "blue": "sad", "miserable": "sad", "upset": "sad",
	"depressed": "sad", "gloomy": "sad", "grieving": "sad", "homesick": "sad",
	"isolated": "lonely", "alone": "lonely", "left out": "lonely", "excluded": "lonely",
	"fatigued": "tired", "sleepy": "tired", "worn out": "exhausted", "burnt out": "exhausted", "burned out": "exhausted",
	"numb": "empty", "hollow": "empty",
	"unmotivated": "apathetic", "indifferent": "apathetic", "listless": "apathetic",
	"defeated": "discouraged", "disheartened": "discouraged", "demotivated": "discouraged",
	"let down": "disappointed", "helpless": "hopeless", "desperate": "hopeless", "despair": "hopeless",
	"guilt": "guilty", "remorseful": "guilty", "regretful": "guilty", "sorry": "guilty",
	"humiliated": "ashamed", "shame": "ashamed",
	"offended": "hurt", "rejected": "hurt", "betrayed": "hurt", "heartbroken": "hurt",
	"inadequate": "insecure", "unsure of myself": "insecure", "self-doubt": "insecure",
	// mixed: pleasant and unpleasant at once
	"wistful": "nostalgic", "sentimental": "nostalgic", "homesick for the old days": "nostalgic",
	"melancholy": "bittersweet", "happy and sad": "bittersweet", "happy-sad": "bittersweet",
	"mixed feelings": "ambivalent", "torn": "ambivalent", "conflicted": "ambivalent", "of two minds": "ambivalent",
}

// feelingKey is the form a feeling word is looked up by: lower case, inner
// space collapsed, and no punctuation at either end ("  Anxious! " is
// "anxious").
func feelingKey(word string) string {
	word = strings.ToLower(strings.Join(strings.Fields(word), " "))
	return strings.TrimFunc(word, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// lookupFeeling finds the vocabulary feeling a word names, directly or
// through feelingSynonyms. vocabulary is keyed by feelingKey of the names.
func lookupFeeling(word string, vocabulary map[string]store.Feeling) (store.Feeling, bool) {
	key := feelingKey(word)
	if f, ok := vocabulary[key]; ok {
		return f, true
	}
	if name, ok := feelingSynonyms[key]; ok {
		f, ok := vocabulary[name]
		return f, ok
	}
	return store.Feeling{}, false
}
