// Package bytesize says how many bytes there are, for people, and counts
// the bytes written through a writer.
package bytesize

import (
	"fmt"
	"io"
)

// Counter is a writer that counts the bytes written through it to W.
type Counter struct {
	W io.Writer
	N int64
}

// Write writes p to W and counts the bytes written.
func (c *Counter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// Format says n bytes in bytes, KiB or MiB, with one decimal: "1.5 MiB".
func Format(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
