package loopnode

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents/fault"
)

// A fork of a run is a new run whose checkpoint is the parent's cut at a
// pass: the forked loop keeps the records of its passes before that pass and
// the head it had after the last of them (saved with each pass record), so
// that the new run resumes there. Loops nested in the kept passes are kept,
// loops nested in later passes are dropped; a loop beside the forked one is
// kept when it had ended before the forked pass began, and otherwise runs
// again. The run's budget records become those saved with the last kept
// pass. Everything else a run saved (its finished mark, records of steps in
// flight) is dropped.

// ForkPass is one level of a fork point: a loop, by id, and the pass the fork
// runs from. Loop is empty for "the only loop" at that level.
type ForkPass struct {
	Loop string
	Pass int
}

// maxForkPoint bounds a fork point's text and its levels.
const (
	maxForkPoint  = 1024
	maxForkLevels = 16
	maxLoopsLimit = 1000 // max_loops's range is 1–1000
)

// ParseForkPoint reads a fork point: "3" (pass 3 of the run's only top-level
// loop), "improve:3", or "outer:2/inner:3" (pass 3 of the loop inner run by
// pass 2 of outer).
func ParseForkPoint(s string) ([]ForkPass, error) {
	if s == "" {
		return nil, errors.New("the pass is empty: give a pass number (3), a loop and pass (improve:3) or a nested one (outer:2/inner:3)")
	}
	if len(s) > maxForkPoint {
		return nil, fmt.Errorf("the pass %.20q… is longer than %d bytes", s, maxForkPoint)
	}
	parts := strings.Split(s, "/")
	if len(parts) > maxForkLevels {
		return nil, fmt.Errorf("the pass %q has %d levels; at most %d", s, len(parts), maxForkLevels)
	}
	out := make([]ForkPass, 0, len(parts))
	for _, part := range parts {
		id, num, named := strings.Cut(part, ":")
		if !named {
			id, num = "", part
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		switch {
		case named && strings.TrimSpace(id) == "":
			return nil, fmt.Errorf("the pass %q: %q names no loop before the colon", s, part)
		case err != nil || n < 1 || n > maxLoopsLimit:
			return nil, fmt.Errorf("the pass %q: %q is not a pass number from 1 to %d (write LOOP:PASS, nested as OUTER:2/INNER:3)", s, num, maxLoopsLimit)
		}
		out = append(out, ForkPass{Loop: strings.TrimSpace(id), Pass: n})
	}
	return out, nil
}

// FormatForkPoint writes at as [ParseForkPoint] reads it.
func FormatForkPoint(at []ForkPass) string {
	parts := make([]string, len(at))
	for i, p := range at {
		if p.Loop == "" {
			parts[i] = strconv.Itoa(p.Pass)
		} else {
			parts[i] = p.Loop + ":" + strconv.Itoa(p.Pass)
		}
	}
	return strings.Join(parts, "/")
}

// forkLevel is one level of a fork being cut: the forked loop's path, the
// pass, and when and with which budget records that pass began.
type forkLevel struct {
	path    string
	pass    int
	head    savedHead
	began   time.Time
	budgets map[string]json.RawMessage
	start   []byte // the loop's start record, its input left out for a fresh input
}

// scope is the path prefix of what ran inside the level's forked pass.
func (l forkLevel) scope() string {
	return l.path + fault.PathSep + "iteration " + strconv.Itoa(l.pass) + fault.PathSep
}

// ForkState cuts a run's checkpoint state at the fork point at: it returns
// the state a new run starts from (its loops resume at the point) and at with
// every loop named (the id of "the only loop"). With freshInput, the forked
// loops' saved inputs are left out, so they run on the new run's input. A
// point the state cannot give (no such loop, a pass the run never reached,
// a pass saved without its head) is an error that says what there is.
func ForkState(state map[string][]byte, at []ForkPass, freshInput bool) (map[string][]byte, []ForkPass, error) {
	heads := map[string]savedHead{}
	for p, data := range state {
		if path, ok := strings.CutPrefix(p, "loop:"); ok && !strings.Contains(path, "#") {
			var h savedHead
			if err := json.Unmarshal(data, &h); err != nil {
				return nil, nil, fmt.Errorf("checkpoint of loop %q: %w", path, err)
			}
			heads[path] = h
		}
	}
	levels := make([]forkLevel, 0, len(at))
	named := slices.Clone(at)
	scope := ""
	for i, fp := range at {
		lv, err := cutLevel(state, heads, scope, fp, freshInput)
		if err != nil {
			return nil, nil, err
		}
		named[i].Loop = lastSegment(lv.path)
		levels = append(levels, lv)
		scope = lv.scope()
	}
	out := map[string][]byte{}
	for p, data := range state {
		rest, ok := strings.CutPrefix(p, "loop:")
		if !ok {
			continue // run marks, budget records (set below), steps in flight
		}
		path, suffix, _ := strings.Cut(rest, "#")
		if keepForked(path, suffix, levels, heads) {
			out[p] = data
		}
	}
	for _, lv := range levels {
		head, err := json.Marshal(lv.head)
		if err != nil {
			return nil, nil, err
		}
		out["loop:"+lv.path] = head
		if lv.start != nil {
			out["loop:"+lv.path+"#start"] = lv.start
		}
	}
	for p, data := range levels[len(levels)-1].budgets {
		out[p] = data
	}
	return out, named, nil
}

// cutLevel finds the loop fp names among the loops directly in scope and
// reads what the fork keeps of it.
func cutLevel(state map[string][]byte, heads map[string]savedHead, scope string, fp ForkPass, freshInput bool) (forkLevel, error) {
	var found, all []string
	for path := range heads {
		rest, ok := strings.CutPrefix(path, scope)
		if !ok || strings.Contains(rest, fault.PathSep+"iteration ") || strings.HasPrefix(rest, "iteration ") {
			continue
		}
		all = append(all, lastSegment(path))
		if fp.Loop == "" || lastSegment(path) == fp.Loop {
			found = append(found, path)
		}
	}
	slices.Sort(all)
	where := "the run"
	if scope != "" {
		where = "pass " + strings.TrimSuffix(scope, fault.PathSep)
	}
	switch {
	case len(all) == 0:
		return forkLevel{}, fmt.Errorf("%s has no checkpointed loop", where)
	case len(found) == 0:
		return forkLevel{}, fmt.Errorf("%s has no checkpointed loop %q; its loops: %s", where, fp.Loop, strings.Join(all, ", "))
	case len(found) > 1 && fp.Loop == "":
		return forkLevel{}, fmt.Errorf("%s has several loops (%s): name one, as LOOP:%d", where, strings.Join(all, ", "), fp.Pass)
	case len(found) > 1:
		slices.Sort(found)
		return forkLevel{}, fmt.Errorf("%s has several loops %q (%s): fork one with the path of the loop it is nested in", where, fp.Loop, strings.Join(found, "; "))
	}
	path := found[0]
	h := heads[path]
	lv := forkLevel{path: path, pass: fp.Pass}
	key := "loop:" + path
	var start savedStart
	if data, ok := state[key+"#start"]; ok {
		if err := json.Unmarshal(data, &start); err != nil {
			return forkLevel{}, fmt.Errorf("checkpoint of loop %q: start: %w", path, err)
		}
		if freshInput && start.Input != nil {
			start.Input = nil
			data, err := json.Marshal(start)
			if err != nil {
				return forkLevel{}, err
			}
			lv.start = data
		}
	}
	switch {
	case fp.Pass > h.Loops+1:
		return forkLevel{}, fmt.Errorf("loop %q of the run completed %d passes: fork from a pass from 1 to %d", path, h.Loops, h.Loops+1)
	case fp.Pass == 1:
		lv.began, lv.budgets = start.Start, start.Budgets
		return lv, nil
	}
	data, ok := state[passKey(key, fp.Pass-1)]
	if !ok {
		return forkLevel{}, fmt.Errorf("loop %q has no record of pass %d in the checkpoint: fork from another pass", path, fp.Pass-1)
	}
	var rec savedPass
	if err := json.Unmarshal(data, &rec); err != nil {
		return forkLevel{}, fmt.Errorf("checkpoint of loop %q pass %d: %w", path, fp.Pass-1, err)
	}
	if rec.Head == nil {
		return forkLevel{}, fmt.Errorf("loop %q: the record of pass %d keeps no loop state to fork from (a checkpoint save failed then, or an older cogloop wrote it): fork from another pass", path, fp.Pass-1)
	}
	lv.head, lv.began, lv.budgets = *rec.Head, rec.Head.Ended, rec.Budgets
	return lv, nil
}

// keepForked reports whether the fork keeps the checkpoint entry of the loop
// at path (suffix: "" for its head, "start", "pass:N", ...).
func keepForked(path, suffix string, levels []forkLevel, heads map[string]savedHead) bool {
	scope := ""
	for i, lv := range levels {
		if path == lv.path {
			// The forked loop: its start record and the kept passes; the
			// head is written anew.
			if suffix == "start" {
				return true
			}
			n, ok := strings.CutPrefix(suffix, "pass:")
			num, err := strconv.Atoi(n)
			return ok && err == nil && num < lv.pass
		}
		if rest, ok := strings.CutPrefix(path, lv.path+fault.PathSep+"iteration "); ok {
			num, err := strconv.Atoi(strings.SplitN(rest, fault.PathSep, 2)[0])
			if err != nil || num > lv.pass {
				return false
			}
			if num < lv.pass {
				return true // inside a kept pass
			}
			if i == len(levels)-1 {
				return false // inside the pass the fork runs again
			}
			scope = lv.scope()
			continue // inside the next level's scope
		}
		if !strings.HasPrefix(path, scope) {
			return false
		}
		// Beside the forked loop: kept when its outermost loop in this
		// scope had ended before the forked pass began.
		outer := outermost(path, scope, heads)
		h := heads[outer]
		return h.Reason != "" && !h.Ended.IsZero() && !h.Ended.After(lv.began)
	}
	return false
}

// outermost is the loop of heads that path is inside of (or path itself),
// directly in scope.
func outermost(path, scope string, heads map[string]savedHead) string {
	rest := strings.TrimPrefix(path, scope)
	if i := strings.Index(rest, fault.PathSep+"iteration "); i >= 0 {
		if _, ok := heads[scope+rest[:i]]; ok {
			return scope + rest[:i]
		}
	}
	return path
}

func lastSegment(path string) string {
	if i := strings.LastIndex(path, fault.PathSep); i >= 0 {
		return path[i+len(fault.PathSep):]
	}
	return path
}
