package fault

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// PathSep joins the parts of an error or event path.
const PathSep = " › "

// JoinPath joins non-empty path parts with [PathSep].
func JoinPath(parts ...string) string {
	n, first := 0, ""
	for _, p := range parts {
		if p != "" {
			if n == 0 {
				first = p
			}
			n += len(PathSep) + len(p)
		}
	}
	if n == 0 || n == len(PathSep)+len(first) {
		return first // no part or one: nothing to join
	}
	var b strings.Builder
	b.Grow(n - len(PathSep))
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(PathSep)
		}
		b.WriteString(p)
	}
	return b.String()
}

// PathError is an error that happened at a place in a workflow
// ("loop improve › iteration 3 › agent scorer"). It unwraps to its cause, so
// errors.Is(err, context.Canceled) still works at the top.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *PathError) Unwrap() error { return e.Err }

// AtPath wraps err with path unless err already carries a path that starts with it.
func AtPath(path string, err error) error {
	if err == nil || path == "" {
		return err
	}
	var pe *PathError
	if errors.As(err, &pe) && strings.HasPrefix(pe.Path, path) {
		return err
	}
	return &PathError{Path: path, Err: err}
}

// Truncate shortens s to at most n bytes (on a rune boundary) and marks the cut, for
// quoting model output in errors.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// FromPanic turns a recovered panic value into an error that carries the stack.
func FromPanic(r any) error {
	return fmt.Errorf("panic: %v\n%s", r, debug.Stack())
}

// FatalError is a failure that repeating the call cannot fix: a missing API key,
// a refused key (401/403), an unknown model (404), a template calling a function
// that does not exist, a scripted reply list that ran out. A step that fails with
// one ends the run at once (agents.RunStep returns it as an error, not an error
// record), whatever a loop's on_error says; retries never retry it.
type FatalError struct {
	Err error
	// Fix tells the user what to do ("set OPENAI_API_KEY", "did you mean get_input?").
	Fix string
}

func (e *FatalError) Error() string {
	if e.Fix == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + " (" + e.Fix + ")"
}

func (e *FatalError) Unwrap() error { return e.Err }

// Fatal marks err as fatal with the fix the user should apply. Fatal(nil, …) is nil.
func Fatal(err error, fix string) error {
	if err == nil {
		return nil
	}
	if IsFatal(err) && fix == "" {
		return err
	}
	return &FatalError{Err: err, Fix: fix}
}

// IsFatal reports whether err is (or wraps) a [FatalError].
func IsFatal(err error) bool {
	var fe *FatalError
	return errors.As(err, &fe)
}
