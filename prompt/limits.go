package prompt

import (
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Resource limits. A template is written by a workflow author and rendered with
// data from users and models; these bounds make a buggy or hostile template fail
// with an error wrapping [ErrLimit] instead of looping for ever or exhausting memory.
const (
	// DefaultMaxOutput is the largest rendered prompt, in bytes, unless
	// [Options.MaxOutput] says otherwise. The same bound applies to any single
	// string or list the template builds (concatenation, repetition, filters).
	DefaultMaxOutput = 1 << 20
	// MaxTemplateBytes is the largest template source Parse accepts.
	MaxTemplateBytes = 1 << 20
	// MaxIterations bounds the loop-body executions ({% for %} iterations and
	// macro calls) of one render.
	MaxIterations = 100_000
	// MaxRange bounds the length of one range(); one render may produce at
	// most 10×MaxRange elements with range().
	MaxRange = 100_000
	// MaxNesting bounds bracket nesting inside one tag, block nesting
	// ({% if %} inside {% for %} ...) and macro call depth.
	MaxNesting = 64
	// MaxTagTokens bounds the number of tokens inside one {{ }} or {% %} tag.
	// Long operator chains nest as deeply as they are long when evaluated.
	MaxTagTokens = 2048
	// maxItems bounds the length of a list built by the template.
	maxItems = 100_000
	// workFactor × MaxOutput bounds the bytes produced in one render, counting
	// intermediate strings (macro bodies, filter results) and the output.
	workFactor = 64
	// maxWidth bounds numeric width/padding/precision arguments (center(),
	// format widths, indent, ...).
	maxWidth = 10_000
)

// stateKey is the context name of the per-render state. It contains a NUL byte,
// so no template can name it.
const stateKey = "\x00cogloop.state"

// renderState is everything one Render call owns. It is created per call and
// reached from gonja's evaluator through the render context.
type renderState struct {
	d       Data
	maxOut  int // cap of the rendered output and of any one built value
	iters   int // loop bodies and macro calls executed
	depth   int // current macro call depth
	rangeN  int // elements produced by range()
	work    int // bytes produced, including intermediate values
	maxWork int
	ev      *exec.Evaluator // on the root scope, for helpers called on the fast path
}

// frame is everything a render allocates up front, in one allocation.
type frame struct {
	st  renderState
	w   limitedWriter
	env exec.Environment
	r   exec.Renderer
	ev  exec.Evaluator
}

// stateOf returns the render state visible from an evaluation context.
func stateOf(ctx *exec.Context) *renderState {
	if v, ok := ctx.Get(stateKey); ok {
		if st, ok := v.(*renderState); ok {
			return st
		}
	}
	return nil
}

func evalState(e *exec.Evaluator) *renderState { return stateOf(e.Environment.Context) }

func rendererState(r *exec.Renderer) *renderState {
	if w, ok := r.Output.(*limitedWriter); ok {
		return w.st
	}
	return stateOf(r.Environment.Context)
}

// tick counts one loop iteration or macro call.
func (st *renderState) tick() error {
	st.iters++
	if st.iters > MaxIterations {
		return fmt.Errorf("%w: more than %d loop iterations and macro calls", ErrLimit, MaxIterations)
	}
	return nil
}

// charge counts n produced bytes.
func (st *renderState) charge(n int) error {
	st.work += n
	if st.work > st.maxWork {
		return fmt.Errorf("%w: template produced more than %d bytes (counting intermediate values)", ErrLimit, st.maxWork)
	}
	return nil
}

// limitedWriter collects the rendered output and enforces the output cap.
type limitedWriter struct {
	b  strings.Builder
	st *renderState
}

func (w *limitedWriter) WriteString(s string) (int, error) {
	if w.b.Len()+len(s) > w.st.maxOut {
		return 0, fmt.Errorf("%w: rendered output exceeds %d bytes", ErrLimit, w.st.maxOut)
	}
	if err := w.st.charge(len(s)); err != nil {
		return 0, err
	}
	return w.b.WriteString(s)
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.st.maxOut {
		return 0, fmt.Errorf("%w: rendered output exceeds %d bytes", ErrLimit, w.st.maxOut)
	}
	if err := w.st.charge(len(p)); err != nil {
		return 0, err
	}
	return w.b.Write(p)
}

// checkLen reports an error when a value built by the template is too large.
// It is cheap for small values: the state is looked up only above 64 KiB.
func checkLen(e *exec.Evaluator, n int, what string) error {
	if n <= 64<<10 {
		return nil
	}
	limit := DefaultMaxOutput
	st := evalState(e)
	if st != nil {
		limit = st.maxOut
	}
	if n > limit {
		return fmt.Errorf("%w: %s would be %d bytes (limit %d)", ErrLimit, what, n, limit)
	}
	if st != nil {
		return st.charge(n)
	}
	return nil
}

func checkItems(n int, what string) error {
	if n > maxItems {
		return fmt.Errorf("%w: %s would have %d items (limit %d)", ErrLimit, what, n, maxItems)
	}
	return nil
}

func checkWidth(n int, what string) error {
	if n > maxWidth {
		return fmt.Errorf("%w: %s %d is larger than %d", ErrLimit, what, n, maxWidth)
	}
	return nil
}
