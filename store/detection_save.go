package store

import (
	"context"
	"database/sql"
	"encoding/json"
)

// SaveDetection writes a detection run's result in one transaction, and
// only what differs from what is stored: new patterns are made, changed
// ones updated (their status and description kept), correlations updated in
// place (those still in the top list keep their ids, detected ones that
// dropped out go, reviewed ones stay) and flows added, changed or removed
// one by one, and the links that make loops written anew when they differ.
// A run over unchanged facts writes nothing. A pattern rejected meanwhile is
// left alone. Each pattern of result is given the id it is stored under, or
// none when it was left alone.
func (s *Store) SaveDetection(ctx context.Context, userID string, result []DetectedPattern) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		w := &detectionWriter{tx: tx, now: FormatTime(s.Now())}
		defer w.close()
		stored, err := storedPatterns(ctx, tx, userID)
		if err != nil {
			return err
		}
		// The user's patterns that are not rejected, by category, once the
		// new ones are inserted: what the loops link.
		ids := make(map[string]string, len(stored)+len(result))
		for category, p := range stored {
			if p.status != PatternRejected {
				ids[category] = p.id
			}
		}
		for i, p := range result {
			old, exists := stored[p.CategoryID]
			result[i].ID = ""
			switch {
			case exists && (old.status == PatternRejected || (p.ID != "" && p.ID != old.id)):
				continue // rejected meanwhile, or made anew: the next run sees to it
			case exists:
				p.ID = old.id // also for one that another run made since this one read the facts
			case p.ID != "":
				continue // deleted meanwhile
			default:
				p.ID = newID()
				if err := w.insertPattern(ctx, userID, p); err != nil {
					return err
				}
				ids[p.CategoryID] = p.ID
			}
			result[i].ID = p.ID
			if err := w.saveLinks(ctx, p, old.linksHash); err != nil {
				return err
			}
			if exists {
				if err := w.updatePattern(ctx, p, old); err != nil {
					return err
				}
			}
		}
		return saveLoops(ctx, tx, userID, result, ids)
	})
}

// storedPattern is a pattern's row as a detection run may change it, in
// the form it is stored in.
type storedPattern struct {
	id, sentiment, impact, feelings, lastSeen, linksHash string
	status                                               PatternStatus
	closedAt                                             sql.NullString
	urgent                                               bool
	capturesCount                                        int
}

// storedPatterns reads the user's patterns by category.
func storedPatterns(ctx context.Context, tx *sql.Tx, userID string) (map[string]storedPattern, error) {
	rows, err := tx.QueryContext(ctx, `SELECT category_id, id, status, sentiment, impact, urgent, feelings, captures_count,
		last_detected_at, closed_at, links_hash FROM patterns WHERE user_id = ?`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]storedPattern{}
	for rows.Next() {
		var category string
		var p storedPattern
		if err := rows.Scan(&category, &p.id, &p.status, &p.sentiment, &p.impact, &p.urgent, &p.feelings, &p.capturesCount,
			&p.lastSeen, &p.closedAt, &p.linksHash); err != nil {
			return nil, err
		}
		out[category] = p
	}
	return out, rows.Err()
}

// detectionWriter writes a detection run's result inside its transaction,
// preparing each statement the first time it is needed: a first run over
// ten years inserts some 50,000 flows.
type detectionWriter struct {
	tx  *sql.Tx
	now string

	insertCorrelation, updateCorrelation, deleteCorrelation *sql.Stmt
	insertFlow, updateFlow, deleteFlow                      *sql.Stmt
}

// exec runs query as the statement *stmt, prepared on first use.
func (w *detectionWriter) exec(ctx context.Context, stmt **sql.Stmt, query string, args ...any) error {
	if *stmt == nil {
		st, err := w.tx.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		*stmt = st
	}
	_, err := (*stmt).ExecContext(ctx, args...)
	return err
}

func (w *detectionWriter) close() {
	for _, st := range []*sql.Stmt{w.insertCorrelation, w.updateCorrelation, w.deleteCorrelation, w.insertFlow, w.updateFlow, w.deleteFlow} {
		if st != nil {
			st.Close()
		}
	}
}

// insertPattern makes a pattern.
func (w *detectionWriter) insertPattern(ctx context.Context, userID string, p DetectedPattern) error {
	feelings, err := json.Marshal(p.Feelings)
	if err != nil {
		return err
	}
	_, err = w.tx.ExecContext(ctx, `INSERT INTO patterns (id, user_id, category_id, sentiment, impact, urgent, feelings, status,
		captures_count, last_detected_at, closed_at, links_hash, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'detected', ?, ?, ?, ?, ?, ?)`,
		p.ID, userID, p.CategoryID, p.Sentiment, p.Impact, p.Urgent, string(feelings), p.CapturesCount,
		FormatTime(p.LastSeen), nullTime(p.ClosedAt), p.LinksHash, w.now, w.now)
	return err
}

// updatePattern updates a stored pattern when the run found it otherwise.
func (w *detectionWriter) updatePattern(ctx context.Context, p DetectedPattern, old storedPattern) error {
	feelings, err := json.Marshal(p.Feelings)
	if err != nil {
		return err
	}
	lastSeen := old.lastSeen // kept for a pattern no capture shows any more
	if !p.LastSeen.IsZero() {
		lastSeen = FormatTime(p.LastSeen)
	}
	closed := nullTime(p.ClosedAt)
	closedAt, _ := closed.(string)
	if p.Sentiment == old.sentiment && p.Impact == old.impact && p.Urgent == old.urgent && string(feelings) == old.feelings &&
		p.CapturesCount == old.capturesCount && lastSeen == old.lastSeen && p.LinksHash == old.linksHash &&
		(closed == nil) == !old.closedAt.Valid && closedAt == old.closedAt.String {
		return nil
	}
	_, err = w.tx.ExecContext(ctx, `UPDATE patterns SET sentiment = ?, impact = ?, urgent = ?, feelings = ?, captures_count = ?,
		last_detected_at = ?, closed_at = ?, links_hash = ?, updated_at = ? WHERE id = ?`,
		p.Sentiment, p.Impact, p.Urgent, string(feelings), p.CapturesCount, lastSeen, closed, p.LinksHash, w.now, p.ID)
	return err
}

// saveLinks brings a pattern's correlations and flows up to date, unless
// they are the ones stored already (storedHash is the stored LinksHash).
func (w *detectionWriter) saveLinks(ctx context.Context, p DetectedPattern, storedHash string) error {
	if p.LinksHash == storedHash && storedHash != "" {
		return nil
	}
	if err := w.saveCorrelations(ctx, p); err != nil {
		return err
	}
	return w.saveFlows(ctx, p, storedHash)
}

// saveCorrelations brings a pattern's correlations up to date. One that
// stays in the top list keeps its row, and so its id: a client that read it
// a moment ago can still review it. Only detected ones that dropped out go;
// reviewed ones stay (detection leaves rejected ones out and keeps accepted
// ones in its result).
func (w *detectionWriter) saveCorrelations(ctx context.Context, p DetectedPattern) error {
	type row struct {
		amount int
		impact string
		status PatternStatus
	}
	stored := map[string]row{}
	rows, err := w.tx.QueryContext(ctx, `SELECT tag_id, amount, impact, status FROM correlations WHERE pattern_id = ?`, p.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var tag string
		var r row
		if err := rows.Scan(&tag, &r.amount, &r.impact, &r.status); err != nil {
			rows.Close()
			return err
		}
		stored[tag] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range p.Correlations {
		old, ok := stored[c.TagID]
		delete(stored, c.TagID)
		switch {
		case !ok:
			err = w.exec(ctx, &w.insertCorrelation, `INSERT INTO correlations (id, pattern_id, tag_id, amount, impact, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, newID(), p.ID, c.TagID, c.Amount, c.Impact, w.now, w.now)
		case old.amount != c.Amount || old.impact != c.Impact:
			err = w.exec(ctx, &w.updateCorrelation, `UPDATE correlations SET amount = ?, impact = ?, updated_at = ? WHERE pattern_id = ? AND tag_id = ?`,
				c.Amount, c.Impact, w.now, p.ID, c.TagID)
		}
		if err != nil {
			return err
		}
	}
	for tag, old := range stored {
		if old.status != PatternDetected { // correlations share the patterns' statuses
			continue
		}
		if err := w.exec(ctx, &w.deleteCorrelation, `DELETE FROM correlations WHERE pattern_id = ? AND tag_id = ?`, p.ID, tag); err != nil {
			return err
		}
	}
	return nil
}

// saveFlows brings a pattern's flows up to date: a new capture adds a flow
// or two to a pattern of hundreds, so only those are written.
func (w *detectionWriter) saveFlows(ctx context.Context, p DetectedPattern, storedHash string) error {
	stored := p.FlowsBefore
	if p.HashBefore == "" || p.HashBefore != storedHash {
		var err error
		if stored, err = w.storedFlows(ctx, p.ID); err != nil {
			return err
		}
	}
	// The flows of the same segments at the start and at the end, where a
	// run's new entries seldom are, are compared in place; the rest by
	// segment.
	same := func(i, j int) bool { return stored[i].SegmentID == p.Flows[j].SegmentID }
	head := 0
	for head < len(stored) && head < len(p.Flows) && same(head, head) {
		head++
	}
	tail := 0
	for tail < len(stored)-head && tail < len(p.Flows)-head && same(len(stored)-1-tail, len(p.Flows)-1-tail) {
		tail++
	}
	for i := range head {
		if err := w.saveFlow(ctx, p.ID, &stored[i], p.Flows[i]); err != nil {
			return err
		}
	}
	for i := range tail {
		if err := w.saveFlow(ctx, p.ID, &stored[len(stored)-1-i], p.Flows[len(p.Flows)-1-i]); err != nil {
			return err
		}
	}
	rest := make(map[string]*Flow, len(stored)-head-tail)
	for i := head; i < len(stored)-tail; i++ {
		rest[stored[i].SegmentID] = &stored[i]
	}
	for _, f := range p.Flows[head : len(p.Flows)-tail] {
		old := rest[f.SegmentID]
		delete(rest, f.SegmentID)
		if err := w.saveFlow(ctx, p.ID, old, f); err != nil {
			return err
		}
	}
	for segment := range rest {
		if err := w.exec(ctx, &w.deleteFlow, `DELETE FROM flows WHERE pattern_id = ? AND segment_id = ?`, p.ID, segment); err != nil {
			return err
		}
	}
	return nil
}

// saveFlow writes flow f of the pattern, stored as old (nil: not stored).
func (w *detectionWriter) saveFlow(ctx context.Context, patternID string, old *Flow, f Flow) error {
	switch {
	case old == nil:
		return w.exec(ctx, &w.insertFlow, `INSERT INTO flows (id, pattern_id, segment_id, trigger, feeling, behaviour) VALUES (?, ?, ?, ?, ?, ?)`,
			flowID(patternID, f.SegmentID), patternID, f.SegmentID, f.Trigger, f.Feeling, f.Behaviour)
	case old.Trigger != f.Trigger || old.Feeling != f.Feeling || old.Behaviour != f.Behaviour:
		return w.exec(ctx, &w.updateFlow, `UPDATE flows SET trigger = ?, feeling = ?, behaviour = ? WHERE pattern_id = ? AND segment_id = ?`,
			f.Trigger, f.Feeling, f.Behaviour, patternID, f.SegmentID)
	}
	return nil
}

// storedFlows reads the pattern's flows as stored.
func (w *detectionWriter) storedFlows(ctx context.Context, patternID string) ([]Flow, error) {
	return queryAll(ctx, w.tx, func(r interface{ Scan(...any) error }) (f Flow, err error) {
		err = r.Scan(&f.SegmentID, &f.Trigger, &f.Feeling, &f.Behaviour)
		return f, err
	}, `SELECT segment_id, trigger, feeling, behaviour FROM flows WHERE pattern_id = ?`, patternID)
}
