// Package web holds the browser app's files, embedded in the binary.
package web

import "embed"

// FS holds the browser app: index.html at its root, and the stylesheets and
// scripts it loads under static/. Pages carry no inline script or style, so
// the server's Content-Security-Policy can forbid both.
//
//go:embed index.html static
var FS embed.FS
