package exportread

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder reads an export document once, front to back. It accepts
// exactly the JSON encoding/json accepts, nested no deeper than MaxDepth,
// decodes strings as encoding/json does and keeps no more than the record
// at hand.
type decoder struct {
	src   *sourceReader
	r     *bufio.Reader
	off   int64             // bytes read: the offset of the next byte
	text  []byte            // the string or number being read, reused
	names map[string]string // field names seen, so that records share their strings
}

// MaxDepth is how deep lists and objects nest in an export at most, the
// document's own object being the first level and a record the third.
const MaxDepth = 64

// maxSharedNames bounds the field names kept to be shared.
const maxSharedNames = 256

// newDecoder reads a document from r, through a buffer of 64 KiB.
func newDecoder(r io.Reader) *decoder {
	src := &sourceReader{r: r}
	return &decoder{src: src, r: bufio.NewReaderSize(src, 64<<10), names: map[string]string{}}
}

// invalid refuses content that is not JSON, saying what is wrong at byte
// at; when reading the document failed, that error is returned instead.
func (d *decoder) invalid(at int64, format string, args ...any) error {
	if d.src.err != nil {
		return d.src.err
	}
	return invalidf("The export is not valid JSON: %s (at byte %d).", fmt.Sprintf(format, args...), at)
}

// unexpected refuses the byte c just read, met where context says.
func (d *decoder) unexpected(c byte, context string) error {
	return d.invalid(d.off-1, "invalid character %s %s", strconv.QuoteRune(rune(c)), context)
}

// ended refuses a document that ends too soon.
func (d *decoder) ended() error { return d.invalid(d.off, "unexpected EOF") }

// read reads the next byte.
func (d *decoder) read() (byte, error) {
	c, err := d.r.ReadByte()
	if err != nil {
		return 0, d.ended()
	}
	d.off++
	return c, nil
}

// space reads past white space and returns the byte after it; false at
// the end of the document.
func (d *decoder) space() (byte, bool) {
	for {
		c, err := d.r.ReadByte()
		if err != nil {
			return 0, false
		}
		d.off++
		if c > ' ' || c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return c, true
		}
	}
}

// next reads the next byte that is not white space.
func (d *decoder) next() (byte, error) {
	c, ok := d.space()
	if !ok {
		return 0, d.ended()
	}
	return c, nil
}

// expect reads the byte want after white space.
func (d *decoder) expect(want byte, context string) error {
	c, err := d.next()
	if err == nil && c != want {
		err = d.unexpected(c, context)
	}
	return err
}

// literal reads the rest of true, false or null after its first byte.
func (d *decoder) literal(word string) error {
	for i := 1; i < len(word); i++ {
		c, err := d.read()
		if err != nil {
			return err
		}
		if c != word[i] {
			return d.unexpected(c, fmt.Sprintf("in literal %s (expecting %s)", word, strconv.QuoteRune(rune(word[i]))))
		}
	}
	return nil
}

// skip checks a value that starts with c and keeps nothing of it; depth
// is the level of the list or object that holds it.
func (d *decoder) skip(c byte, depth int) error {
	switch {
	case c == '"':
		_, err := d.str(strCheck, "")
		return err
	case c == '-' || isDigit(c):
		_, err := d.number(c)
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '[' || c == '{':
		return d.skipNested(c, depth+1)
	}
	return d.unexpected(c, "looking for beginning of value")
}

// skipNested checks a list or an object at level depth, after the
// bracket or brace open that opens it.
func (d *decoder) skipNested(open byte, depth int) error {
	if depth > MaxDepth {
		return d.invalid(d.off-1, "lists and objects nest deeper than %d levels", MaxDepth)
	}
	end, after := byte(']'), "after array element"
	if open == '{' {
		end, after = '}', "after object key:value pair"
	}
	c, err := d.next()
	if err != nil || c == end {
		return err
	}
	for {
		if open == '{' {
			if c != '"' {
				return d.unexpected(c, "looking for beginning of object key string")
			}
			if _, err := d.str(strCheck, ""); err != nil {
				return err
			}
			if err := d.expect(':', "after object key"); err != nil {
				return err
			}
			if c, err = d.next(); err != nil {
				return err
			}
		}
		if err := d.skip(c, depth); err != nil {
			return err
		}
		var done bool
		if c, done, err = d.after(end, after); err != nil || done {
			return err
		}
	}
}

// after reads what follows an element of a list or an object that end
// closes: done at its end, else the first byte of the next element, after
// the comma.
func (d *decoder) after(end byte, context string) (c byte, done bool, err error) {
	if c, err = d.next(); err != nil {
		return 0, false, err
	}
	switch c {
	case end:
		return c, true, nil
	case ',':
		c, err = d.next()
		return c, false, err
	}
	return 0, false, d.unexpected(c, context)
}

// number reads a number whose first byte c was read and returns its
// literal, valid until the next string or number is read.
func (d *decoder) number(c byte) ([]byte, error) {
	d.text = append(d.text[:0], c)
	var ok bool
	if c == '-' {
		if c, ok = d.numberByte(); !ok {
			return nil, d.ended()
		} else if !isDigit(c) {
			return nil, d.unexpected(c, "in numeric literal")
		}
	}
	if c == '0' { // a leading zero is the whole integer part
		c, ok = d.numberByte()
	} else {
		c, ok = d.digits()
	}
	if ok && c == '.' {
		if c, ok = d.numberByte(); !ok {
			return nil, d.ended()
		} else if !isDigit(c) {
			return nil, d.unexpected(c, "after decimal point in numeric literal")
		}
		c, ok = d.digits()
	}
	if ok && (c == 'e' || c == 'E') {
		if c, ok = d.numberByte(); ok && (c == '+' || c == '-') {
			c, ok = d.numberByte()
		}
		if !ok {
			return nil, d.ended()
		} else if !isDigit(c) {
			return nil, d.unexpected(c, "in exponent of numeric literal")
		}
		c, ok = d.digits()
	}
	if ok { // c follows the number: the caller reads it again
		d.r.UnreadByte()
		d.off--
		d.text = d.text[:len(d.text)-1]
	}
	return d.text, nil
}

// numberByte reads a byte of a number into d.text; false at the end of
// the document (or when reading failed, which the next read reports).
func (d *decoder) numberByte() (byte, bool) {
	c, err := d.r.ReadByte()
	if err != nil {
		return 0, false
	}
	d.off++
	d.text = append(d.text, c)
	return c, true
}

// digits reads digits of a number and returns the byte after them.
func (d *decoder) digits() (byte, bool) {
	for {
		if c, ok := d.numberByte(); !ok || !isDigit(c) {
			return c, ok
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// plainByte tells the bytes that stand for themselves in a string.
var plainByte = func() (plain [256]bool) {
	for c := range plain {
		plain[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return plain
}()

// strUse says what a string read is for.
type strUse int

const (
	strCheck strUse = iota // only checked
	strValue               // a value: a string of its own
	strName                // a field's name: shared with the same name before
)

// str reads a string after its opening quote. Unless use is strCheck it
// returns the text as encoding/json decodes it, invalid UTF-8 becoming
// U+FFFD; a field name equal to same is given as same, the name most
// likely (the one at its place in the record before). The string is read
// from the buffer a run of plain bytes at a time.
func (d *decoder) str(use strUse, same string) (string, error) {
	d.text = d.text[:0]
	for {
		b, err := d.buffered()
		if err != nil {
			return "", err
		}
		i := 0
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i == len(b) {
			if use != strCheck {
				d.text = append(d.text, b...)
			}
			d.discard(i)
			continue
		}
		switch c := b[i]; c {
		case '"':
			var s string
			if use != strCheck {
				if len(d.text) == 0 { // read in one run: no copy needed
					s = d.keep(b[:i], use, same)
				} else {
					d.text = append(d.text, b[:i]...)
					s = d.keep(d.text, use, same)
				}
			}
			d.discard(i + 1)
			return s, nil
		case '\\':
			if use != strCheck {
				d.text = append(d.text, b[:i]...)
			}
			d.discard(i + 1)
			if err := d.escape(use != strCheck); err != nil {
				return "", err
			}
		default:
			d.discard(i + 1)
			return "", d.unexpected(c, "in string literal")
		}
	}
}

// keep makes a string's text a string of its own, or for a field name the
// string of the same name read before: same, or one in d.names.
func (d *decoder) keep(text []byte, use strUse, same string) string {
	if !utf8.Valid(text) {
		text = replaceInvalidUTF8(text)
	}
	if use != strName {
		return string(text)
	}
	if string(text) == same {
		return same
	}
	if s, ok := d.names[string(text)]; ok {
		return s
	}
	s := string(text)
	if len(d.names) < maxSharedNames {
		d.names[s] = s
	}
	return s
}

// replaceInvalidUTF8 replaces every byte that is not part of valid UTF-8
// with U+FFFD, each on its own, as encoding/json does.
func replaceInvalidUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, r)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// escape reads an escape in a string after its backslash and, with keep,
// adds what it stands for to d.text.
func (d *decoder) escape(keep bool) error {
	c, err := d.read()
	if err != nil {
		return err
	}
	switch c {
	case '"', '\\', '/':
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		r, err := d.hex4()
		if err != nil {
			return err
		}
		if keep {
			if utf16.IsSurrogate(r) {
				r = d.pairSurrogate(r)
			}
			d.text = utf8.AppendRune(d.text, r)
		}
		return nil
	default:
		return d.unexpected(c, "in string escape code")
	}
	if keep {
		d.text = append(d.text, c)
	}
	return nil
}

// hex4 reads the four hexadecimal digits of a \u escape.
func (d *decoder) hex4() (rune, error) {
	var r rune
	for range 4 {
		c, err := d.read()
		if err != nil {
			return 0, err
		}
		v := hexValue(c)
		if v < 0 {
			return 0, d.unexpected(c, "in \\u hexadecimal character escape")
		}
		r = r<<4 | v
	}
	return r, nil
}

// pairSurrogate reads the \u escape that completes the surrogate r into a
// character, if one comes next; otherwise r stands for U+FFFD and what
// follows is read on its own, as encoding/json decodes it.
func (d *decoder) pairSurrogate(r rune) rune {
	next, _ := d.r.Peek(6)
	if len(next) < 6 || next[0] != '\\' || next[1] != 'u' {
		return utf8.RuneError
	}
	var low rune
	for _, c := range next[2:] {
		v := hexValue(c)
		if v < 0 {
			return utf8.RuneError
		}
		low = low<<4 | v
	}
	pair := utf16.DecodeRune(r, low)
	if pair != utf8.RuneError {
		d.discard(6)
	}
	return pair
}

// hexValue is the value of a hexadecimal digit, -1 for another byte.
func hexValue(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// buffered returns the bytes read ahead, reading more when there are none.
func (d *decoder) buffered() ([]byte, error) {
	if d.r.Buffered() == 0 {
		if _, err := d.r.Peek(1); err != nil {
			return nil, d.ended()
		}
	}
	b, _ := d.r.Peek(d.r.Buffered())
	return b, nil
}

// discard consumes n bytes of those buffered.
func (d *decoder) discard(n int) {
	d.r.Discard(n)
	d.off += int64(n)
}
