package load

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/internal/loaderr"
)

// Pos is a position in a workflow file. Line and Col are 1-based; zero means unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Problem is one thing wrong (or, for a warning, doubtful) in a workflow file.
type Problem struct {
	Pos     Pos
	Msg     string
	Warning bool
	// Note marks advice that only `validate` shows (a loop without an explicit
	// cap); under strict mode a note is an error.
	Note bool
	// Hint marks advice `validate` shows that stays advice under strict mode:
	// a guess about how the workflow may behave (a score pattern that can match
	// more than one agent's output), not a fault.
	Hint bool
}

func (p Problem) Error() string {
	if s := p.Pos.String(); s != "" {
		return s + ": " + p.Msg
	}
	return p.Msg
}

// Problems collects every problem found while loading, so a user sees all of them
// at once. It is safe for concurrent use.
type Problems struct {
	mu   sync.Mutex
	list []Problem
}

// Errorf records an error at pos.
func (ps *Problems) Errorf(pos Pos, format string, args ...any) {
	ps.add(Problem{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Warnf records a warning at pos.
func (ps *Problems) Warnf(pos Pos, format string, args ...any) {
	ps.add(Problem{Pos: pos, Msg: fmt.Sprintf(format, args...), Warning: true})
}

// Notef records a note at pos: advice validate shows, an error under strict mode.
func (ps *Problems) Notef(pos Pos, format string, args ...any) {
	ps.add(Problem{Pos: pos, Msg: fmt.Sprintf(format, args...), Note: true})
}

// Hintf records a hint at pos: advice validate shows, advice under strict mode too.
func (ps *Problems) Hintf(pos Pos, format string, args ...any) {
	ps.add(Problem{Pos: pos, Msg: fmt.Sprintf(format, args...), Hint: true})
}

func (ps *Problems) add(p Problem) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.list = append(ps.list, p)
}

// Warnings returns the warnings in file order.
func (ps *Problems) Warnings() []Problem {
	return ps.filter(func(p Problem) bool { return p.Warning && !p.Note && !p.Hint })
}

// Errors returns the errors in file order.
func (ps *Problems) Errors() []Problem {
	return ps.filter(func(p Problem) bool { return !p.Warning && !p.Note && !p.Hint })
}

// Notes returns the notes in file order.
func (ps *Problems) Notes() []Problem { return ps.filter(func(p Problem) bool { return p.Note }) }

// Hints returns the hints in file order.
func (ps *Problems) Hints() []Problem { return ps.filter(func(p Problem) bool { return p.Hint }) }

func (ps *Problems) filter(keep func(Problem) bool) []Problem {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []Problem
	for _, p := range ps.list {
		if keep(p) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

// Err returns every error as one *Error, or nil when there are none.
func (ps *Problems) Err() error {
	errs := ps.Errors()
	if len(errs) == 0 {
		return nil
	}
	return &Error{Problems: errs}
}

// Error is a workflow that cannot be built: every problem found, in file order.
type Error struct {
	Problems []Problem
	// Warnings are the doubtful things found with the errors, shown after
	// them (Error prefixes each with "warning: ").
	Warnings []Problem
	// What names the problems in the first line of a message with several
	// ("3 problems in scoring presets:"); empty means "problems".
	What string
}

func (e *Error) Error() string {
	what := e.What
	if what == "" {
		what = "problems"
	}
	return loaderr.Message(what, e.Problems, e.Warnings)
}

// Unwrap lets errors.Is/As see each problem.
func (e *Error) Unwrap() []error { return loaderr.Unwrap(e.Problems) }

// IsError reports whether err is (or wraps) a *Error.
func IsError(err error) bool {
	var le *Error
	return errors.As(err, &le)
}

// YAMLProblem places a yaml.v3 syntax error from parsing file: "yaml: line
// 3: did not find expected key" is the problem "did not find expected key"
// at file:3:1; an error without a line is at the file. Callers say what
// failed to parse in front of Msg.
func YAMLProblem(file string, err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	p := Problem{Pos: Pos{File: file}, Msg: msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				p.Pos.Line, p.Pos.Col, p.Msg = n, 1, tail
			}
		}
	}
	return p
}
