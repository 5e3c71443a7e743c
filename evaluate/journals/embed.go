// Package journals holds the labelled journals recur eval runs, embedded in the
// binary, and the lexicons the scripted stand-in model reads them with.
// Its README.md documents the label format.
package journals

import "embed"

// FS holds every journal (NAME.json) and its lexicon (NAME.lexicon.json).
//
//go:embed *.json
var FS embed.FS
