package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"math"
)

// TagType is what a tag names: a trigger, a feeling, a behaviour, a
// person, a location or an activity. A category's kind is the type of the
// tags it groups. It is stored and sent as its text.
type TagType string

// Tag types.
const (
	TagTrigger         TagType = "trigger"
	TagPositiveFeeling TagType = "positive_feeling"
	TagNegativeFeeling TagType = "negative_feeling"
	TagMixedFeeling    TagType = "mixed_feeling" // bittersweet, nostalgic: pleasant and unpleasant at once
	TagGoodBehaviour   TagType = "good_behaviour"
	TagBadBehaviour    TagType = "bad_behaviour"
	TagPerson          TagType = "person"
	TagLocation        TagType = "location"
	TagActivity        TagType = "activity"
)

// TagTypes lists every tag type.
var TagTypes = []TagType{TagTrigger, TagPositiveFeeling, TagNegativeFeeling, TagMixedFeeling, TagGoodBehaviour, TagBadBehaviour, TagPerson, TagLocation, TagActivity}

// Categorised reports whether tags of the type belong to a category: triggers and behaviours do.
func Categorised(tagType TagType) bool {
	return tagType == TagTrigger || tagType == TagGoodBehaviour || tagType == TagBadBehaviour
}

// Tag is a named trigger, feeling, behaviour, person, location or activity
// of one user. One name and type is one tag across all the user's captures.
type Tag struct {
	ID        string
	UserID    string
	Type      TagType
	Name      string
	FeelingID string    // feelings only
	Category  *Category // triggers and behaviours; nil for the others
}

// Category groups a user's triggers or behaviours of the same meaning.
// Its kind is the type of the tags it groups.
type Category struct {
	ID        string
	UserID    string
	Kind      TagType
	Name      string
	Rejected  bool
	Embedding []float32
}

// Feeling is a word of the fixed vocabulary of feelings.
type Feeling struct {
	ID      string
	Name    string
	Valence int    // 1 pleasant, 0 mixed, -1 unpleasant
	Energy  string // high or low
}

// TagType is the tag type of a feeling: positive_feeling, negative_feeling
// or mixed_feeling.
func (f Feeling) TagType() TagType {
	switch {
	case f.Valence > 0:
		return TagPositiveFeeling
	case f.Valence < 0:
		return TagNegativeFeeling
	}
	return TagMixedFeeling
}

// Tone names a feeling's valence: pleasant, unpleasant or mixed.
func (f Feeling) Tone() string {
	switch {
	case f.Valence > 0:
		return "pleasant"
	case f.Valence < 0:
		return "unpleasant"
	}
	return "mixed"
}

const tagColumns = `t.id, t.user_id, t.type, t.name, coalesce(t.feeling_id, ''), c.id, c.kind, c.name, c.rejected_at IS NOT NULL`

// scanTag reads tagColumns, after any leading columns given in pre.
func scanTag(row interface{ Scan(...any) error }, pre ...any) (*Tag, error) {
	var t Tag
	var catID, catKind, catName sql.NullString
	var rejected sql.NullBool
	dest := append(pre, &t.ID, &t.UserID, &t.Type, &t.Name, &t.FeelingID, &catID, &catKind, &catName, &rejected)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if catID.Valid {
		t.Category = &Category{ID: catID.String, UserID: t.UserID, Kind: TagType(catKind.String), Name: catName.String, Rejected: rejected.Bool}
	}
	return &t, nil
}

// Feelings returns the vocabulary of feelings, by name.
func (s *Store) Feelings(ctx context.Context) ([]Feeling, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, name, valence, energy FROM feelings ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Feeling
	for rows.Next() {
		var f Feeling
		if err := rows.Scan(&f.ID, &f.Name, &f.Valence, &f.Energy); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Tags returns the user's tags of the given types, with their categories,
// most used first, then by name (as NOCASE compares) and type.
func (s *Store) Tags(ctx context.Context, userID string, types ...TagType) ([]Tag, error) {
	marks, args := typeArgs(userID, types)
	rows, err := s.read.QueryContext(ctx, `SELECT `+tagColumns+` FROM tags t LEFT JOIN categories c ON c.id = t.category_id
		LEFT JOIN tag_uses u ON u.tag_id = t.id
		WHERE t.user_id = ? AND t.type IN (`+marks+`)
		ORDER BY coalesce(u.uses, 0) DESC, t.name, t.type`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Tag
	for rows.Next() {
		t, err := scanTag(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, rows.Err()
}

// Categories returns the user's categories of a kind, rejected ones included, by name.
func (s *Store) Categories(ctx context.Context, userID string, kind TagType) ([]Category, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, user_id, kind, name, rejected_at IS NOT NULL, coalesce(embedding, '')
		FROM categories WHERE user_id = ? AND kind = ? ORDER BY name`, userID, string(kind))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Category
	for rows.Next() {
		var c Category
		var emb string
		if err := rows.Scan(&c.ID, &c.UserID, &c.Kind, &c.Name, &c.Rejected, &emb); err != nil {
			return nil, err
		}
		if emb != "" {
			if c.Embedding, err = parseVector(emb); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetCategoryEmbedding stores the embedding of a category's name.
func (s *Store) SetCategoryEmbedding(ctx context.Context, id string, vec []float32) error {
	b, err := json.Marshal(vec)
	if err != nil {
		return err
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE categories SET embedding = ? WHERE id = ?`, string(b), id)
		return err
	})
}

// TagEmbeddings returns the stored embeddings of the names of the user's
// tags of the given types, by tag id. Tags never embedded are absent.
func (s *Store) TagEmbeddings(ctx context.Context, userID string, types ...TagType) (map[string][]float32, error) {
	marks, args := typeArgs(userID, types)
	rows, err := s.read.QueryContext(ctx, `SELECT e.tag_id, e.embedding FROM tag_embeddings e JOIN tags t ON t.id = e.tag_id
		WHERE t.user_id = ? AND t.type IN (`+marks+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		if len(b)%4 != 0 {
			return nil, Errorf(EINTERNAL, "embedding of tag %s has %d bytes, not whole float32s", id, len(b))
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		out[id] = v
	}
	return out, rows.Err()
}

// SetTagEmbeddings stores the embeddings of tag names, by tag id, replacing
// any stored before. A tag deleted meanwhile is skipped.
func (s *Store) SetTagEmbeddings(ctx context.Context, vecs map[string][]float32) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO tag_embeddings (tag_id, embedding)
			SELECT id, ? FROM tags WHERE id = ?
			ON CONFLICT (tag_id) DO UPDATE SET embedding = excluded.embedding`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for id, v := range vecs {
			b := make([]byte, 4*len(v))
			for i, f := range v {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
			}
			if _, err := stmt.ExecContext(ctx, b, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// typeArgs returns the placeholders of an IN list of the types, and the
// arguments of a query on the user's tags of those types.
func typeArgs(userID string, types []TagType) (marks string, args []any) {
	args = []any{userID}
	for i, t := range types {
		if i > 0 {
			marks += ", "
		}
		marks += "?"
		args = append(args, string(t))
	}
	return marks, args
}
