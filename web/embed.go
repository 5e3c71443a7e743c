// Package web is the browser app: pages rendered on the server from
// html/template, a stylesheet and small JavaScript modules, all embedded in
// the binary. Every page works with JavaScript off; scripts only add live
// status and keyboard shortcuts.
package web

import "embed"

// FS holds the browser app: the page templates under templates/, and the
// stylesheet and scripts the pages load under static/. Pages carry no inline
// script or style, so the server's Content-Security-Policy can forbid both.
//
//go:embed templates static
var FS embed.FS
