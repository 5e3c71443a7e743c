// Package english holds the small rules of English that messages, logs and
// pages written in Go (not through the message catalogue) share.
package english

// Plural is one when n is 1 and many otherwise: 0 entries, 1 entry, 2
// entries.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
