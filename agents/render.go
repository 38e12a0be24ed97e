package agents

import "github.com/cogloop/cogloop/prompt"

// Data returns what templates see for this call.
func (in Input) Data() prompt.Data {
	d := prompt.Data{Input: in.Value, Previous: in.Previous.Map(), PreviousOrder: in.Previous.IDs(), Vars: in.Vars}
	if in.Loop != nil {
		d.LoopNumber = in.Loop.Number
		d.PastLoopsMetadata = in.Loop.Metadata
	}
	return d
}

// Render renders t for this call. A nil template renders "".
func (in Input) Render(t *prompt.Template) (string, error) {
	if t == nil {
		return "", nil
	}
	return t.Render(in.Data())
}
