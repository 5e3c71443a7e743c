package detect

// SumLinks is the sum of a pattern's correlations and flows that a run
// saves with it.
func SumLinks(p Pattern) string {
	sum, _ := linksHash(p, nil)
	return sum
}
