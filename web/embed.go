// Package web holds the browser app's files, embedded in the binary.
package web

import "embed"

// FS holds the browser app.
//
//go:embed index.html
var FS embed.FS
