package prompt

// This file fixes the package's API; the implementation is in progress.

// Options tune how templates parse and render.
type Options struct {
	// Strict makes undefined names an error at render time instead of "".
	Strict bool
}

// Data is what a template sees. Helpers (get_input, get_past_loops, ...) read it too.
type Data struct {
	// Input is the "input" variable: the workflow input, or inside a loop iteration
	// the wrapper mapping {input, previous_outputs, loop_number, past_loops_metadata}.
	Input any
	// Previous is previous_outputs: agent id → that agent's output in OrKa's shape
	// (map[string]any with response, confidence, ...; error records {status, error}).
	Previous map[string]any
	// LoopNumber is loop_number inside a loop iteration, 0 outside.
	LoopNumber int
	// PastLoopsMetadata is past_loops_metadata inside a loop iteration, nil outside.
	PastLoopsMetadata map[string]any
	// Vars are further top-level variables; they do not replace the ones above.
	Vars map[string]any
}

// Template is a parsed template: parsed once at load time, rendered once per call,
// safe for concurrent use.
type Template struct {
	name, src string
	opts      Options
}

// SyntaxError is a template that does not parse. Line and Col are relative to the
// template source (1-based).
type SyntaxError struct {
	Name      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Parse parses src. STUB: replaced by the real implementation.
func Parse(name, src string, opts Options) (*Template, error) {
	return &Template{name: name, src: src, opts: opts}, nil
}

// Source is the template text.
func (t *Template) Source() string { return t.src }

// Render renders the template with d. STUB.
func (t *Template) Render(d Data) (string, error) { return t.src, nil }

// Eval renders a template that is a single expression to the expression's value
// (a number stays a number); any other template renders to its string. STUB.
func (t *Template) Eval(d Data) (any, error) { return t.src, nil }
