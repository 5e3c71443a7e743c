package web

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/recur-journal/recur/importer"
)

// The tags and attributes an entry's Markdown may give, and how to find
// them in rendered HTML.
var (
	tags         = regexp.MustCompile(`<\s*/?\s*([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	attrs        = regexp.MustCompile(`([^\s=/"']+)\s*=`)
	quoted       = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	allowedTags  = map[string]bool{}
	allowedAttrs = map[string]bool{"href": true, "rel": true, "class": true, "align": true, "type": true, "checked": true, "disabled": true}
)

func init() {
	for _, t := range strings.Fields("p br a em strong del h3 h4 h5 h6 ul ol li code pre blockquote hr table thead tbody tr th td mark input") {
		allowedTags[t] = true
	}
}

// hrefs are the addresses of the links in rendered HTML.
var hrefs = regexp.MustCompile(`(?i)\bhref="([^"]*)"`)

// TestMarkdownIsSafe: an entry's Markdown never lets HTML through, and its
// links go only to http, https, mailto or a path of the site, however the
// address is written.
func TestMarkdownIsSafe(t *testing.T) {
	cases := []struct {
		name, text string
		shows      string // text the reader still sees, escaped
	}{
		{"ScriptBlock", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"ScriptInline", "Hello <script>alert(1)</script> there", "&lt;script&gt;"},
		{"ImageOnError", `<img src=x onerror="alert(1)">`, "&lt;img src=x onerror="},
		{"InlineTags", `I was <b onclick="alert(1)">so</b> tired`, "&lt;b onclick="},
		{"Iframe", "<iframe src=\"https://evil.example\"></iframe>\n\nafter", "&lt;iframe"},
		{"Comment", "a <!-- hidden --> b", "&lt;!-- hidden --&gt;"},
		{"StyleBlock", "<style>body{display:none}</style>", "&lt;style&gt;"},
		{"JavascriptLink", "[click](javascript:alert(1))", "click"},
		{"JavascriptCapitals", "[click](JaVaScRiPt:alert(1))", "click"},
		{"JavascriptEntity", "[click](java&#x73;cript:alert(1))", "click"},
		{"JavascriptEntityColon", "[click](javascript&colon;alert(1))", "click"},
		{"JavascriptPointy", "[click](<javascript:alert(1)>)", "click"},
		{"JavascriptTab", "[click](<java\tscript:alert(1)>)", "click"},
		{"JavascriptReference", "[click][x]\n\n[x]: javascript:alert(1)", "click"},
		{"JavascriptAutolink", "<javascript:alert(1)>", "javascript:alert(1)"},
		{"DataLink", "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "click"},
		{"VBScriptLink", "[click](vbscript:msgbox)", "click"},
		{"FileLink", "[click](file:///etc/passwd)", "click"},
		{"ImageFromElsewhere", "![a cat](https://tracker.example/pixel.png)", "a cat"},
		{"ImageJavascript", "![a cat](javascript:alert(1))", "a cat"},
		// The pages' Content-Security-Policy refuses style attributes.
		{"AlignedTable", "| a | b |\n|:--|--:|\n| 1 | 2 |", `<td align="right">2</td>`},
		{"TaskList", "- [x] slept\n- [ ] ran", "slept"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := string(markdown(c.text))
			for _, tag := range tags.FindAllStringSubmatch(out, -1) {
				if !allowedTags[strings.ToLower(tag[1])] {
					t.Errorf("markdown(%q) lets the tag %q through:\n%s", c.text, tag[0], out)
				}
				for _, a := range attrs.FindAllStringSubmatch(quoted.ReplaceAllString(tag[2], `""`), -1) {
					if !allowedAttrs[strings.ToLower(a[1])] {
						t.Errorf("markdown(%q) lets the attribute %q through:\n%s", c.text, a[1], out)
					}
				}
			}
			if strings.Contains(out, "<!") {
				t.Errorf("markdown(%q) lets a comment or declaration through:\n%s", c.text, out)
			}
			if !strings.Contains(out, c.shows) {
				t.Errorf("markdown(%q) does not show %q:\n%s", c.text, c.shows, out)
			}
			for _, m := range hrefs.FindAllStringSubmatch(out, -1) {
				u, err := url.Parse(html.UnescapeString(m[1]))
				if err != nil || m[1] == "" || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto") {
					t.Errorf("markdown(%q) links to %q", c.text, m[1])
				}
			}
		})
	}
}

// TestMarkdownKeepsWhatIsWritten: emphasis, lists, safe links and line
// breaks show as written; headings sit below the page's own.
func TestMarkdownKeepsWhatIsWritten(t *testing.T) {
	cases := []struct{ text, want string }{
		{"I felt **much** better", "<p>I felt <strong>much</strong> better</p>"},
		{"Woke early.\nRan to the river.", "<p>Woke early.<br>\nRan to the river.</p>"},
		{"- tea\n- a walk", "<ul>\n<li>tea</li>\n<li>a walk</li>\n</ul>"},
		{"# Sunday", "<h3>Sunday</h3>"},
		{"[the river](https://river.example/a?b=1&c=2)", `<a href="https://river.example/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">the river</a>`},
		{"See https://river.example/x today", `<a href="https://river.example/x" rel="nofollow noopener noreferrer">https://river.example/x</a>`},
		{"[an entry](/entries/01)", `<a href="/entries/01" rel="nofollow noopener noreferrer">an entry</a>`},
		{"I <3 you & me", "<p>I &lt;3 you &amp; me</p>"},
	}
	for _, c := range cases {
		if got := string(markdown(c.text)); !strings.Contains(got, c.want) {
			t.Errorf("markdown(%q) = %q, want it to hold %q", c.text, got, c.want)
		}
	}
}

// TestMarkdownMarksSituations: the entry page marks each situation once,
// inside the Markdown, even where the parser cut the text apart.
func TestMarkdownMarksSituations(t *testing.T) {
	text := "My boss criticised my report. Later I *walked* home."
	got := string(markdownMarked(text, [][2]int{{0, 29}, {30, len(text)}}))
	want := `<p><mark class="situation">My boss criticised my report.</mark> <mark class="situation">Later I </mark><em><mark class="situation">walked</mark></em><mark class="situation"> home.</mark></p>`
	if strings.TrimSpace(got) != want {
		t.Errorf("marked:\n%s\nwant:\n%s", got, want)
	}
}

// TestImportedTitleStaysTheTitle: a Markdown file's front matter title is
// the entry's heading once imported, also when it reads like Markdown of
// another kind (a numbered list).
func TestImportedTitleStaysTheTitle(t *testing.T) {
	for _, title := range []string{"Evening with the neighbours", "1. May, finally warm"} {
		doc := "---\ntitle: \"" + title + "\"\ndate: 2024-05-01\n---\nDinner outside.\n"
		res, err := importer.Read("note.md", []byte(doc), importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 1 {
			t.Fatalf("%d entries, want 1", len(res.Entries))
		}
		got := string(markdown(res.Entries[0].Text))
		if want := "<h3>" + title + "</h3>\n<p>Dinner outside.</p>"; strings.TrimSpace(got) != want {
			t.Errorf("title %q imported and shown as\n%s\nwant\n%s", title, got, want)
		}
	}
}
