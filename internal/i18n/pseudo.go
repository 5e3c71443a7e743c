package i18n

import (
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// accents gives each ASCII letter an accented look-alike.
var accents = strings.NewReplacer(
	"a", "á", "b", "ƀ", "c", "ç", "d", "ð", "e", "é", "f", "ƒ", "g", "ĝ", "h", "ĥ", "i", "î", "j", "ĵ",
	"k", "ķ", "l", "ļ", "m", "ɱ", "n", "ñ", "o", "ö", "p", "þ", "q", "ǫ", "r", "ŕ", "s", "š", "t", "ţ",
	"u", "û", "v", "ṽ", "w", "ŵ", "x", "ẋ", "y", "ý", "z", "ž",
	"A", "Å", "B", "Ɓ", "C", "Ç", "D", "Ð", "E", "É", "F", "Ƒ", "G", "Ĝ", "H", "Ĥ", "I", "Î", "J", "Ĵ",
	"K", "Ķ", "L", "Ļ", "M", "Ṁ", "N", "Ñ", "O", "Ö", "P", "Þ", "Q", "Ǫ", "R", "Ŕ", "S", "Š", "T", "Ţ",
	"U", "Û", "V", "Ṽ", "W", "Ŵ", "X", "Ẋ", "Y", "Ý", "Z", "Ž")

// pseudoText accents s and pads each word by about 40%, as German and
// French run longer than English; format verbs (%d, %[1]s) stay as they are.
func pseudoText(s string) string {
	var b strings.Builder
	words := strings.Split(s, " ")
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if strings.Contains(w, "%") || strings.Contains(w, "{") {
			b.WriteString(w)
			continue
		}
		letters := 0
		for _, r := range w {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				letters++
			}
		}
		b.WriteString(accents.Replace(w))
		b.WriteString(strings.Repeat("~", (letters*2+4)/5))
	}
	return b.String()
}

// pseudoLocale is English, accented and padded, with plural forms made so too.
func (c *cat) pseudoLocale() *Locale {
	en := c.locale(language.Make(Default))
	b := c.pseudoBuilder()
	en.printer = message.NewPrinter(language.English, message.Catalog(b))
	en.pseudo, en.Lang, en.first = true, Pseudo, time.Monday
	return en
}

// pseudoBuilder holds English's plural forms, accented and padded.
func (c *cat) pseudoBuilder() *catalog.Builder {
	c.pseudoOnce.Do(func() {
		c.pseudo = catalog.NewBuilder(catalog.Fallback(language.English))
		for key, forms := range c.english.Plurals {
			p := map[string]string{}
			for k, v := range forms {
				p[k] = pseudoText(v)
			}
			// The English forms were checked when the catalogue was built.
			m, _ := pluralMessage(p)
			c.pseudo.Set(language.English, key, m)
		}
	})
	return c.pseudo
}
