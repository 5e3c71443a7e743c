package exportread

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// docSize is how many records of the larger tables a synthetic export
// holds; the smaller tables follow from the captures.
type docSize struct{ captures, segments, segmentTags, flows int }

// tenYears is the shape of an export after ten years of daily entries.
var tenYears = docSize{captures: 3650, segments: 17000, segmentTags: 117000, flows: 50000}

// syntheticExport writes a document shaped as Export writes it (one record
// a line, keys sorted, values escaped as encoding/json escapes them) with
// plausible fields: UUID-like ids, times, entries of about a thousand
// characters with paragraphs, quotes and letters beyond ASCII.
func syntheticExport(tb testing.TB, n docSize, seed uint64) (doc []byte, records int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	id := func() string {
		return fmt.Sprintf("%08x-%04x-7%03x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, 0x8000|r.Uint32()&0x3fff, r.Uint64()&0xffffffffffff)
	}
	start := time.Date(2016, 11, 1, 19, 0, 0, 0, time.UTC)
	at := func(day int) string {
		return start.AddDate(0, 0, day).Add(time.Duration(r.IntN(3600e6)) * time.Microsecond).Format("2006-01-02T15:04:05.000000Z")
	}
	sentences := []string{
		"Woke up tired again and skipped the run I had planned.",
		"The meeting with Anna ran long, and I felt \"invisible\" when my idea got ignored.",
		"Had coffee at the café near the station; it's the one place I can think.",
		"Snapped at Tom over the dishes <again> & regretted it straight away.",
		"Called mum in the evening — she sounded calmer than last week.",
		"Scrolled my phone in bed until one, which never helps.",
		"Went for a long walk by the river and felt proud I didn't skip it.",
		"Work deadline moved up; the old anxious knot in my stomach is back.",
		"Cooked dinner with friends, laughed a lot, went to bed content.",
		"Journalled for ten minutes before work: it's getting easier ✓.",
	}
	text := func() string {
		var b strings.Builder
		for b.Len() < 1000 {
			if b.Len() > 0 {
				if r.IntN(4) == 0 {
					b.WriteString("\n\n")
				} else {
					b.WriteString(" ")
				}
			}
			b.WriteString(sentences[r.IntN(len(sentences))])
		}
		return b.String()
	}
	names := []string{"work stress", "running", "mum", "the café", "late screens", "cooking", "river walk", "deadline", "Anna", "Tom"}
	feelings := []string{"anxious", "stressed", "calm", "proud", "sad", "tired", "content", "frustrated", "guilty", "grateful"}
	kinds := []string{"trigger", "good_behaviour", "bad_behaviour"}

	var out bytes.Buffer
	user, _ := json.Marshal(map[string]any{"email": "decade@example.com", "name": "Sam", "created_at": at(0)})
	fmt.Fprintf(&out, "{\n\"format\": %q,\n\"version\": %d,\n\"exported_at\": %q,\n\"user\": %s", layout.Format, layout.Version, at(n.captures), user)
	table := func(name string, count int, record func(i int) map[string]any) {
		fmt.Fprintf(&out, ",\n%q: [", name)
		records += count
		for i := range count {
			line, err := json.Marshal(record(i))
			if err != nil {
				tb.Fatal(err)
			}
			if i > 0 {
				out.WriteByte(',')
			}
			out.WriteString("\n  ")
			out.Write(line)
		}
		out.WriteString("]")
	}
	table("settings", 3, func(i int) map[string]any {
		kv := [][2]string{{"app_locale", "en"}, {"timezone", "Europe/Lisbon"}, {"week_start", "monday"}}[i]
		return map[string]any{"key": kv[0], "value": kv[1], "updated_at": at(i)}
	})
	categories := make([]string, max(2, n.captures/30))
	table("categories", len(categories), func(i int) map[string]any {
		categories[i] = id()
		var rejected any
		if i%17 == 3 {
			rejected = at(i + 40)
		}
		return map[string]any{"id": categories[i], "kind": kinds[i%3], "name": fmt.Sprintf("%s %d", names[i%len(names)], i), "rejected_at": rejected, "created_at": at(i)}
	})
	tags := make([]string, 3*len(categories))
	table("tags", len(tags), func(i int) map[string]any {
		tags[i] = id()
		var category, feeling any
		switch i % 3 {
		case 0:
			category = categories[i/3]
		case 1:
			feeling = feelings[i%len(feelings)]
		}
		return map[string]any{"id": tags[i], "type": []string{"trigger", "negative_feeling", "person"}[i%3], "name": fmt.Sprintf("%s %d", names[i%len(names)], i),
			"category_id": category, "feeling_id": feeling, "created_at": at(i / 3)}
	})
	captures := make([]string, n.captures)
	texts := make([]string, n.captures)
	table("captures", n.captures, func(i int) map[string]any {
		captures[i], texts[i] = id(), text()
		made := at(i)
		return map[string]any{"id": captures[i], "original": texts[i], "translated": texts[i], "language": "en", "origin": "text",
			"occurred_at": made, "status": "processed", "available_at": made, "attempts": 0, "background": 0, "created_at": made, "updated_at": made}
	})
	segments := make([]string, n.segments)
	table("segments", n.segments, func(i int) map[string]any {
		segments[i] = id()
		c := i * n.captures / max(1, n.segments)
		t := texts[c]
		from := r.IntN(len(t) / 2)
		to := min(len(t), from+150+r.IntN(100))
		ids := make([]string, 7)
		for k := range ids {
			ids[k] = tags[r.IntN(len(tags))]
		}
		return map[string]any{"id": segments[i], "capture_id": captures[c], "position": i % 5, "start": from, "end": to,
			"text": strings.ToValidUTF8(t[from:to], ""), "tag_ids": strings.Join(ids, ",")}
	})
	table("segment_tags", n.segmentTags, func(i int) map[string]any {
		return map[string]any{"segment_id": segments[i*n.segments/max(1, n.segmentTags)], "tag_id": tags[r.IntN(len(tags))], "position": i % 7}
	})
	patterns := make([]string, len(categories)/2)
	table("patterns", len(patterns), func(i int) map[string]any {
		patterns[i] = id()
		made := at(i * 20)
		return map[string]any{"id": patterns[i], "category_id": categories[i*2], "sentiment": "negative", "impact": "moderate", "urgent": i % 2,
			"feelings": `["anxious","tired"]`, "description": "Comes back on work days, mostly in the evening.", "description_locale": "en",
			"status": "detected", "captures_count": 40 + i, "links_hash": fmt.Sprintf("%016x", r.Uint64()), "last_detected_at": at(n.captures),
			"closed_at": nil, "created_at": made, "updated_at": made}
	})
	table("correlations", 5*len(patterns), func(i int) map[string]any {
		made := at(i * 4)
		return map[string]any{"id": id(), "pattern_id": patterns[i/5], "tag_id": tags[r.IntN(len(tags))], "amount": 3 + r.IntN(40),
			"impact": "low", "status": "detected", "created_at": made, "updated_at": made}
	})
	table("flows", n.flows, func(i int) map[string]any {
		return map[string]any{"id": id(), "pattern_id": patterns[i%len(patterns)], "segment_id": segments[r.IntN(len(segments))],
			"trigger": names[r.IntN(len(names))], "feeling": feelings[r.IntN(len(feelings))], "behaviour": names[r.IntN(len(names))]}
	})
	out.WriteString("\n}\n")
	return out.Bytes(), records
}

// BenchmarkReadExport reads a ten-year export from memory, record by
// record, as a restore does, and reports the rate and the allocations.
func BenchmarkReadExport(b *testing.B) {
	doc, want := syntheticExport(b, tenYears, 1)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	records := 0
	for b.Loop() {
		records = 0
		err := Read(bytes.NewReader(doc), layout, func(string, int, *Row) error {
			records++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if records != want {
		b.Fatalf("read %d records, want %d", records, want)
	}
	b.ReportMetric(float64(len(doc))/(1<<20), "MiB/doc")
}
