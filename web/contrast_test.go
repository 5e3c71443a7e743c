package web_test

import (
	"io/fs"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/recur-journal/recur/web"
)

// themes reads the colour custom properties of the stylesheet: the light
// theme from :root, the dark one from the prefers-color-scheme block.
func themes(t *testing.T) map[string]map[string]string {
	t.Helper()
	css, err := fs.ReadFile(web.FS, "static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	text := string(css)
	dark := strings.Index(text, "@media (prefers-color-scheme: dark)")
	if dark < 0 {
		t.Fatal("the stylesheet has no dark theme")
	}
	prop := regexp.MustCompile(`--([a-z0-9-]+):\s*(#[0-9a-fA-F]{6})`)
	read := func(s string) map[string]string {
		m := map[string]string{}
		for _, p := range prop.FindAllStringSubmatch(s, -1) {
			if _, seen := m[p[1]]; !seen {
				m[p[1]] = p[2]
			}
		}
		return m
	}
	end := strings.Index(text[dark:], "}\n}") + dark
	return map[string]map[string]string{"light": read(text[:dark]), "dark": read(text[dark:end])}
}

// luminance is WCAG 2's relative luminance of a #rrggbb colour.
func luminance(hex string) float64 {
	var l [3]float64
	for i := range 3 {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.04045 {
			l[i] = c / 12.92
		} else {
			l[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

func ratio(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// Every text colour meets WCAG AA (4.5:1) on each background it is drawn
// on, and focus rings, borders of controls and chart marks meet 3:1, in
// both themes.
func TestContrast(t *testing.T) {
	pairs := []struct {
		fg, bg string
		min    float64
	}{
		{"fg", "bg", 4.5}, {"fg", "card", 4.5}, {"muted", "bg", 4.5}, {"muted", "card", 4.5},
		{"link", "bg", 4.5}, {"link", "card", 4.5}, {"error", "card", 4.5}, {"error", "bg", 4.5},
		{"accent-fg", "accent", 4.5}, {"danger-fg", "danger", 4.5},
		{"mark-fg", "mark", 4.5}, {"situation-fg", "situation", 4.5},
		{"pleasant-fg", "pleasant", 4.5}, {"unpleasant-fg", "unpleasant", 4.5}, {"mixed-fg", "mixed", 4.5},
		{"chip-fg", "chip", 4.5}, {"banner-fg", "banner", 4.5},
		{"focus", "bg", 3}, {"focus", "card", 3}, {"line", "card", 3}, {"accent", "card", 3},
		{"day-on", "card", 3}, {"m-2", "card", 3}, {"m2", "card", 3}, {"m-mixed", "card", 3},
	}
	for name, theme := range themes(t) {
		for _, p := range pairs {
			fg, bg := theme[p.fg], theme[p.bg]
			if fg == "" || bg == "" {
				t.Errorf("%s theme: --%s or --%s is missing", name, p.fg, p.bg)
				continue
			}
			if r := ratio(fg, bg); r < p.min {
				t.Errorf("%s theme: --%s %s on --%s %s has contrast %.2f, want at least %.1f", name, p.fg, fg, p.bg, bg, r, p.min)
			}
		}
	}
}
