package web

import (
	"bytes"
	"html/template"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Entries are Markdown: CommonMark with GitHub's tables, strikethrough,
// task lists and bare links, rendered by goldmark, with these rules on top:
//   - HTML in an entry is shown as the text it is, never as HTML;
//   - a link goes only to http, https, mailto or a path of this site;
//     any other (javascript:, data:, ...) is left as its text;
//   - an image is shown as a link to it (the pages load no images from
//     elsewhere), by its description;
//   - a line break stays a line break, as the writer saw it in the box;
//   - headings start at level 3, below the page's own.
var entryMarkdown = goldmark.New(
	// GitHub's extensions, a table's alignment as an attribute: the pages'
	// Content-Security-Policy refuses style attributes.
	goldmark.WithExtensions(extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough, extension.Linkify, extension.TaskList),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(entryRules{}, 100))),
	goldmark.WithRendererOptions(html.WithHardWraps(), renderer.WithNodeRenderers(util.Prioritized(textRenderer{}, 100))),
)

// markdown renders an entry's text as HTML by the rules above.
func markdown(src string) template.HTML { return markdownMarked(src, nil) }

// markdownMarked renders src as markdown does, with the byte ranges of
// situations in src marked (<mark class="situation">) where they hold
// plain text.
func markdownMarked(src string, situations [][2]int) template.HTML {
	source := []byte(src)
	doc := entryMarkdown.Parser().Parse(text.NewReader(source))
	if d, ok := doc.(*ast.Document); ok && situations != nil {
		d.AddMeta(situationsKey, situations)
	}
	var b bytes.Buffer
	if err := entryMarkdown.Renderer().Render(&b, source, doc); err != nil {
		// Rendering writes to memory: it fails only on a bug, and then
		// the text is shown as it is.
		return template.HTML("<p>" + template.HTMLEscapeString(src) + "</p>")
	}
	return template.HTML(b.String())
}

const situationsKey = "situations"

// safeURL reports whether a link may go to dest: http, https and mailto
// links, and paths without a scheme.
func safeURL(dest string) bool {
	u, err := url.Parse(strings.TrimSpace(dest))
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto":
		return true
	case "":
		return true
	}
	return false
}

// entryRules changes the parsed entry by the rules above: links, images
// and headings.
type entryRules struct{}

func (entryRules) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var links, autolinks, images []ast.Node
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			joinText(n)
		case *ast.Heading:
			n.Level = min(n.Level+2, 6)
		case *ast.Link:
			links = append(links, n)
		case *ast.AutoLink:
			autolinks = append(autolinks, n)
		case *ast.Image:
			images = append(images, n)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range images {
		img := n.(*ast.Image)
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c)
			c = next
		}
		img.Parent().ReplaceChild(img.Parent(), img, link)
		links = append(links, link)
	}
	for _, n := range links {
		link := n.(*ast.Link)
		// The check reads the address as the page will hold it, its
		// character references resolved.
		if safeURL(string(util.URLEscape(link.Destination, true))) {
			link.SetAttributeString("rel", "nofollow noopener noreferrer")
			continue
		}
		unwrap(link)
	}
	for _, n := range autolinks {
		al := n.(*ast.AutoLink)
		if al.AutoLinkType == ast.AutoLinkEmail || safeURL(string(util.URLEscape(al.URL(source), false))) {
			al.SetAttributeString("rel", "nofollow noopener noreferrer")
			continue
		}
		t := ast.NewString(al.Label(source))
		al.Parent().ReplaceChild(al.Parent(), al, t)
	}
}

// joinText makes t one node with the plain text nodes right after it in
// the source, which the parser may have cut apart, so a situation is
// marked once, not piece by piece.
func joinText(t *ast.Text) {
	for {
		next, ok := t.NextSibling().(*ast.Text)
		if !ok || t.IsRaw() || next.IsRaw() || t.SoftLineBreak() || t.HardLineBreak() || next.Segment.Start != t.Segment.Stop {
			return
		}
		t.Segment = t.Segment.WithStop(next.Segment.Stop)
		t.SetSoftLineBreak(next.SoftLineBreak())
		t.SetHardLineBreak(next.HardLineBreak())
		t.Parent().RemoveChild(t.Parent(), next)
	}
}

// unwrap puts n's children in its place.
func unwrap(n ast.Node) {
	parent := n.Parent()
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.RemoveChild(parent, n)
}

// textRenderer draws HTML written in an entry as text, and marks the
// situations of an entry in its plain text.
type textRenderer struct{}

func (textRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockAsText)
	reg.Register(ast.KindRawHTML, renderRawHTMLAsText)
	reg.Register(ast.KindText, renderMarkedText)
}

func renderHTMLBlockAsText(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	w.WriteString("<p>")
	lines := n.Lines()
	var all []byte
	for i := range lines.Len() {
		line := lines.At(i)
		all = append(all, line.Value(source)...)
	}
	if n.HasClosure() {
		closure := n.ClosureLine
		all = append(all, closure.Value(source)...)
	}
	for i, line := range strings.Split(strings.TrimRight(string(all), "\n"), "\n") {
		if i > 0 {
			w.WriteString("<br>\n")
		}
		w.Write(util.EscapeHTML([]byte(line)))
	}
	w.WriteString("</p>\n")
	return ast.WalkContinue, nil
}

func renderRawHTMLAsText(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		w.Write(util.EscapeHTML(seg.Value(source)))
	}
	return ast.WalkSkipChildren, nil
}

// renderMarkedText writes a text node as goldmark does (with hard wraps),
// wrapping the parts of it inside a situation in <mark>.
func renderMarkedText(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Text)
	seg := n.Segment
	write := func(b []byte) {
		if n.IsRaw() {
			html.DefaultWriter.RawWrite(w, b)
		} else {
			html.DefaultWriter.Write(w, b)
		}
	}
	situations, _ := node.OwnerDocument().Meta()[situationsKey].([][2]int)
	at := seg.Start
	for _, s := range situations {
		start, end := max(s[0], at), min(s[1], seg.Stop)
		if start >= end {
			continue
		}
		write(source[at:start])
		w.WriteString(`<mark class="situation">`)
		write(source[start:end])
		w.WriteString(`</mark>`)
		at = end
	}
	write(source[at:seg.Stop])
	if !n.IsRaw() && (n.HardLineBreak() || n.SoftLineBreak()) {
		w.WriteString("<br>\n")
	}
	return ast.WalkContinue, nil
}
