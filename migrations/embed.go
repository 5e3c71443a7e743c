// Package migrations holds Recur's goose SQL migrations, embedded in the binary.
//
// A migration that has shipped is never edited: a change to the schema is a new file.
package migrations

import "embed"

// FS holds every migration file, named NNNNN_what.sql.
//
//go:embed *.sql
var FS embed.FS
