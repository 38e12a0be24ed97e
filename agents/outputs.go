package agents

import (
	"sync"

	"github.com/cogloop/cogloop/internal/values"
)

// Outputs is the ordered record of the agents already run in a workflow: what
// templates see as previous_outputs. It is persistent: [Outputs.With] returns a new
// value and never changes what the receiver shows, so a snapshot handed to an agent or a
// branch stays as it was. The zero value and nil are empty.
//
// A snapshot is a prefix of a shared append-only log: extending the newest
// snapshot of a log appends in place (O(1)), extending an older one (a second
// fork branch, the next loop pass) copies its prefix into a new log. Lookups go
// through the log's index of positions by id.
type Outputs struct {
	log *outLog
	n   int // records of log this snapshot sees
}

// outLog is the shared record log behind snapshots. Records below any
// snapshot's n never change; mu guards the slice header and the index.
type outLog struct {
	mu   sync.RWMutex
	recs []*outRec
	// last is the position of each id's newest record, made once the log
	// passes smallLog records; a smaller log (most: one sequence's steps) is
	// scanned instead, which costs less than making and filling a map.
	last map[string]int
}

// smallLog is the most records a log looks up by scanning.
const smallLog = 8

// newest returns the position of the newest record of id below n, or -1.
// The caller holds mu (or owns l alone).
func (l *outLog) newest(id string, n int) int {
	if l.last == nil {
		for i := n - 1; i >= 0; i-- {
			if l.recs[i].id == id {
				return i
			}
		}
		return -1
	}
	i, ok := l.last[id]
	for ok && i >= n { // recorded after the first n: follow the chain back
		i = l.recs[i].prevSame
		ok = i >= 0
	}
	if !ok {
		return -1
	}
	return i
}

// outRec is one recorded output.
type outRec struct {
	id       string
	*outVal       // shared by the records of one output in several logs
	first    bool // the first record of id in the log
	prevSame int  // position of the record of id before this one, -1 if none
	distinct int  // distinct ids in the log up to and including this record
	lastNew  int  // position of the latest first record up to and including this one
}

// outVal is one output as recorded: the same value when it is recorded again
// in another log (a copied snapshot, a fork's branches gathered, a sequence's
// own record next to what its steps see), so its map is made once.
type outVal struct {
	out      Output
	mapOnce  sync.Once
	m        map[string]any // out.Map(), built once for templates
	viewOnce sync.Once
	view     any // m in its key order, as templates see it (view.go)
}

// outMap is the output as templates see it, built once: outputs never
// change, and templates cannot change the maps they are handed.
func (v *outVal) outMap() map[string]any {
	v.mapOnce.Do(func() { v.m = v.out.Map() })
	return v.m
}

// DropMaps lets go of the template maps made for p's outputs, to be made
// again if they are read later (a loop keeps its passes' outputs to the end
// of the run, their maps only while the pass is read). Maps already handed
// out stay as they are. Only for outputs nobody reads meanwhile: the steps
// that made and read them have returned.
func (p *Outputs) DropMaps() {
	p.each(func(r *outRec) bool {
		r.mapOnce, r.m = sync.Once{}, nil
		r.viewOnce, r.view = sync.Once{}, nil
		return true
	})
}

// add appends a record; the caller holds mu or owns l alone.
func (l *outLog) add(id string, v *outVal) {
	i := len(l.recs)
	r := &outRec{id: id, outVal: v, prevSame: l.newest(id, i)}
	r.first = r.prevSame < 0
	if i > 0 {
		prev := l.recs[i-1]
		r.distinct, r.lastNew = prev.distinct, prev.lastNew
	}
	if r.first {
		r.distinct++
		r.lastNew = i
	}
	l.recs = append(l.recs, r)
	switch {
	case l.last != nil:
		l.last[id] = i
	case len(l.recs) > smallLog:
		l.last = make(map[string]int, 2*len(l.recs))
		for j, r := range l.recs {
			l.last[r.id] = j
		}
	}
}

// view returns the records this snapshot sees.
func (p *Outputs) view() []*outRec {
	if p == nil || p.log == nil || p.n == 0 {
		return nil
	}
	p.log.mu.RLock()
	recs := p.log.recs[:p.n]
	p.log.mu.RUnlock()
	return recs
}

// latest returns the newest record of id below n.
func (p *Outputs) latest(id string) (*outRec, bool) {
	if p == nil || p.log == nil || p.n == 0 {
		return nil, false
	}
	l := p.log
	l.mu.RLock()
	defer l.mu.RUnlock()
	i := l.newest(id, p.n)
	if i < 0 {
		return nil, false
	}
	return l.recs[i], true
}

// With returns the outputs with id set to out. A repeated id keeps its first
// position and takes the new output, as OrKa's later log entries overwrite earlier ones.
func (p *Outputs) With(id string, out Output) *Outputs {
	return p.with(id, &outVal{out: out})
}

// with is With for a recorded output.
func (p *Outputs) with(id string, v *outVal) *Outputs {
	if p != nil && p.log != nil {
		l := p.log
		l.mu.Lock()
		if len(l.recs) == p.n { // the newest snapshot: extend in place
			l.add(id, v)
			l.mu.Unlock()
			return &Outputs{log: l, n: p.n + 1}
		}
		l.mu.Unlock()
	}
	l := p.copyLog(1)
	l.add(id, v)
	return &Outputs{log: l, n: len(l.recs)}
}

// copyLog returns a new log holding this snapshot's records, with room for
// extra more.
func (p *Outputs) copyLog(extra int) *outLog {
	recs := p.view()
	l := &outLog{recs: make([]*outRec, 0, len(recs)+extra)}
	for _, r := range recs {
		l.add(r.id, r.outVal)
	}
	return l
}

// record sets id to out in place, as [Outputs.With] does on a copy; only for
// Outputs nobody else holds yet.
func (p *Outputs) record(id string, v *outVal) {
	if p.log == nil {
		p.log = &outLog{recs: make([]*outRec, 0, 4)}
	}
	l := p.log
	l.mu.Lock()
	if len(l.recs) == p.n {
		l.add(id, v)
		l.mu.Unlock()
		p.n++
		return
	}
	l.mu.Unlock()
	*p = *p.with(id, v)
}

// snapshot is what p shows now, unchanged by later records into p.
func (p *Outputs) snapshot() *Outputs {
	q := *p
	return &q
}

// WithAll returns p with every output of qs recorded in order, as [Outputs.With]
// would one by one. Neither p nor qs change.
func (p *Outputs) WithAll(qs ...*Outputs) *Outputs {
	n := p
	for _, q := range qs {
		q.each(func(r *outRec) bool {
			n = n.with(r.id, r.outVal)
			return true
		})
	}
	return n
}

// Get returns the output of id.
func (p *Outputs) Get(id string) (Output, bool) {
	r, ok := p.latest(id)
	if !ok {
		return Output{}, false
	}
	return r.out, true
}

// Len is the number of recorded agents.
func (p *Outputs) Len() int {
	recs := p.view()
	if len(recs) == 0 {
		return 0
	}
	return recs[len(recs)-1].distinct
}

// IDs returns the agent ids in run order. The slice is a copy.
func (p *Outputs) IDs() []string {
	recs := p.view()
	if len(recs) == 0 {
		return nil
	}
	ids := make([]string, 0, recs[len(recs)-1].distinct)
	for _, r := range recs {
		if r.first {
			ids = append(ids, r.id)
		}
	}
	return ids
}

// each calls fn for the newest record of every id in run order (of first
// records) until fn returns false.
func (p *Outputs) each(fn func(r *outRec) bool) {
	recs := p.view()
	if len(recs) == 0 {
		return
	}
	repeats := recs[len(recs)-1].distinct != len(recs)
	for _, r := range recs {
		if !r.first {
			continue
		}
		if repeats {
			r, _ = p.latest(r.id)
		}
		if !fn(r) {
			return
		}
	}
}

// Each calls fn for every output in run order until fn returns false.
func (p *Outputs) Each(fn func(id string, out Output) bool) {
	p.each(func(r *outRec) bool { return fn(r.id, r.out) })
}

// Last returns the most recently recorded output.
func (p *Outputs) Last() (string, Output, bool) {
	recs := p.view()
	if len(recs) == 0 {
		return "", Output{}, false
	}
	id := recs[recs[len(recs)-1].lastNew].id
	r, _ := p.latest(id)
	return id, r.out, true
}

// EachMap calls fn for every output in run order with its map as templates
// see it ([Output.Map]) until fn returns false. The map is made once per
// record and shared (templates read the same one): fn must not change it.
func (p *Outputs) EachMap(fn func(id string, m map[string]any) bool) {
	p.each(func(r *outRec) bool { return fn(r.id, r.outMap()) })
}

// Map returns the outputs as templates see them: agent id → [Output.Map].
func (p *Outputs) Map() map[string]any {
	m := make(map[string]any, p.Len())
	p.Each(func(id string, out Output) bool {
		m[id] = out.Map()
		return true
	})
	return m
}

// templateMap is [Outputs.Map] for templates, with each output's view
// (view.go) built once and shared: all outputs, or those of ids present.
func (p *Outputs) templateMap(ids []string, all bool) map[string]any {
	if all {
		m := make(map[string]any, p.Len())
		p.each(func(r *outRec) bool {
			m[r.id] = r.outView()
			return true
		})
		return m
	}
	m := make(map[string]any, len(ids))
	for _, id := range ids {
		if r, ok := p.latest(id); ok {
			m[id] = r.outView()
		}
	}
	return m
}

// Text formats a response value as text: strings as they are, booleans as
// true/false, numbers in their shortest form, anything else as compact JSON
// without HTML escaping ([values.Text], the same rules cognition reads by).
func Text(v any) string { return values.Text(v) }
