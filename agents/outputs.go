package agents

import "github.com/cogloop/cogloop/internal/values"

// Outputs is the ordered record of the agents already run in a workflow: what
// templates see as previous_outputs. It is persistent: [Outputs.With] returns a new
// value and never changes the receiver, so a snapshot handed to an agent or a
// branch stays as it was. The zero value and nil are empty.
type Outputs struct {
	ids  []string
	outs map[string]Output
}

// With returns the outputs with id set to out. A repeated id keeps its first
// position and takes the new output, as OrKa's later log entries overwrite earlier ones.
func (p *Outputs) With(id string, out Output) *Outputs {
	n := &Outputs{outs: make(map[string]Output, p.Len()+1)}
	if p != nil {
		n.ids = make([]string, len(p.ids), len(p.ids)+1)
		copy(n.ids, p.ids)
		for k, v := range p.outs {
			n.outs[k] = v
		}
	}
	if _, ok := n.outs[id]; !ok {
		n.ids = append(n.ids, id)
	}
	n.outs[id] = out
	return n
}

// Get returns the output of id.
func (p *Outputs) Get(id string) (Output, bool) {
	if p == nil {
		return Output{}, false
	}
	o, ok := p.outs[id]
	return o, ok
}

// Len is the number of recorded agents.
func (p *Outputs) Len() int {
	if p == nil {
		return 0
	}
	return len(p.ids)
}

// IDs returns the agent ids in run order. The slice is a copy.
func (p *Outputs) IDs() []string {
	if p == nil {
		return nil
	}
	return append([]string(nil), p.ids...)
}

// Each calls fn for every output in run order until fn returns false.
func (p *Outputs) Each(fn func(id string, out Output) bool) {
	if p == nil {
		return
	}
	for _, id := range p.ids {
		if !fn(id, p.outs[id]) {
			return
		}
	}
}

// Last returns the most recently recorded output.
func (p *Outputs) Last() (string, Output, bool) {
	if p.Len() == 0 {
		return "", Output{}, false
	}
	id := p.ids[len(p.ids)-1]
	return id, p.outs[id], true
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

// Text formats a response value as text: strings as they are, booleans as
// true/false, numbers in their shortest form, anything else as compact JSON
// without HTML escaping ([values.Text], the same rules cognition reads by).
func Text(v any) string { return values.Text(v) }
