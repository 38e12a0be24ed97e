package agents

import (
	"maps"

	"github.com/cogloop/cogloop/internal/pyvalue"
)

// PastLoop is one entry of a loop's history (past_loops) as a Go value: the
// pass's number and score, the lessons cognitive extraction found, and the
// further fields its past_loops_metadata made (Extra).
type PastLoop struct {
	Number       int
	Score        float64
	Insights     string
	Improvements string
	Mistakes     string
	// Timestamp is when the entry was made (OrKa's ISO format), "" if the
	// metadata has none.
	Timestamp string
	// Extra holds the entry's other fields (custom metadata, further lesson
	// categories), nil when there are none.
	Extra map[string]any
}

// ReadPastLoop reads a past_loops entry (the mapping templates see) as a
// PastLoop: loop_number, score, insights, improvements, mistakes and
// timestamp go to their fields, numbers written as text are read, and every
// other key goes to Extra.
func ReadPastLoop(m map[string]any) PastLoop {
	p := PastLoop{}
	rest := maps.Clone(m)
	take := func(k string) (any, bool) {
		v, ok := rest[k]
		delete(rest, k)
		return v, ok
	}
	if v, ok := take("loop_number"); ok {
		f, _ := pyvalue.Number(v)
		p.Number = int(f)
	}
	if v, ok := take("score"); ok {
		p.Score, _ = pyvalue.Number(v)
	}
	for k, dst := range map[string]*string{"insights": &p.Insights, "improvements": &p.Improvements, "mistakes": &p.Mistakes, "timestamp": &p.Timestamp} {
		if v, ok := take(k); ok {
			*dst = Text(v)
		}
	}
	if len(rest) > 0 {
		p.Extra = rest
	}
	return p
}
