package backup

import (
	"fmt"
	"io"

	"github.com/recur-journal/recur/internal/bytesize"
)

// Progress tells a person at a terminal how far a long command has got: on
// a terminal, one line rewritten in place ("\r") with the bytes done; when
// standard error is a file or a pipe (a log, cron mail), one plain line per
// step and no counting, so the output stays clean.
type Progress struct {
	w   io.Writer
	tty bool
	// label names what is being counted on the current line.
	label      string
	total      int64
	done       int64
	shown      int64 // done when the line was last written
	lineActive bool
}

// progressStep is how many bytes pass between two rewrites of the line, so a
// large file does not rewrite it for every buffer.
const progressStep = 1 << 20

// NewProgress writes to w, rewriting its line only when tty is set.
func NewProgress(w io.Writer, tty bool) *Progress { return &Progress{w: w, tty: tty} }

// Step starts a step: a line of its own, whatever the output is.
func (p *Progress) Step(text string) {
	if p == nil {
		return
	}
	p.endLine()
	fmt.Fprintln(p.w, text)
}

// Count starts counting total bytes under label; on a terminal the count is
// shown and rewritten as Reader reads, elsewhere nothing is written.
func (p *Progress) Count(label string, total int64) {
	if p == nil {
		return
	}
	p.endLine()
	p.label, p.total, p.done, p.shown = label, total, 0, 0
	p.show()
}

// Reader counts what is read from r into the current count.
func (p *Progress) Reader(r io.Reader) io.Reader {
	if p == nil || !p.tty {
		return r
	}
	return &progressReader{r: r, p: p}
}

// Done ends the current count's line.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	if p.lineActive && p.shown != p.done {
		p.show()
	}
	p.endLine()
}

func (p *Progress) add(n int) {
	p.done += int64(n)
	if n > 0 && (p.done-p.shown >= progressStep || p.done == p.total) {
		p.show()
	}
}

func (p *Progress) show() {
	if !p.tty {
		return
	}
	line := fmt.Sprintf("%s: %s", p.label, bytesize.Format(p.done))
	if p.total > 0 {
		line += fmt.Sprintf(" of %s (%d%%)", bytesize.Format(p.total), min(100, p.done*100/p.total))
	}
	// \x1b[K clears what a longer earlier line left behind.
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.shown, p.lineActive = p.done, true
}

func (p *Progress) endLine() {
	if p.lineActive {
		fmt.Fprintln(p.w)
		p.lineActive = false
	}
}

// progressReader counts the bytes read through it.
type progressReader struct {
	r io.Reader
	p *Progress
}

func (r *progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.p.add(n)
	return n, err
}
