package orchestrator

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/internal/yamlbound"
)

// Source is a file a workflow references (a loop's workflow_ref): its name as
// errors show it and its contents.
type Source struct {
	Name string
	Data []byte
}

// MaxRefFiles bounds the workflow_ref files one load may read. Together the
// referenced files have the main file's [Limits] (bytes and YAML nodes), so a
// load reads at most twice what one file may cost.
const MaxRefFiles = 64

// WorkflowFile builds the workflow in the file at path (a loop's
// workflow_ref), through the same builder as an inline internal_workflow: a
// relative path is relative to the directory of the referring file (pos.File);
// a path outside that directory is allowed (as pricing files are) when the
// file exists. Problems in the referenced file are recorded with its own
// positions; a reference cycle, a missing or oversized file is a problem at
// pos. It returns nil, nil when a problem was recorded.
func (sb *scopeBuilder) WorkflowFile(path string, pos load.Pos, what string) (agents.Agent, error) {
	b := sb.s.b
	if strings.TrimSpace(path) == "" {
		b.probs.Errorf(pos, "%s is empty: give the path of a workflow file, relative to %s", what, displayDir(pos.File))
		return nil, nil
	}
	name := filepath.Clean(path)
	if !filepath.IsAbs(name) && pos.File != "" {
		name = filepath.Join(filepath.Dir(pos.File), name)
	}
	abs := absPath(name)
	for i, f := range b.stack {
		if f == abs {
			chain := make([]string, 0, len(b.stack)-i+1)
			for _, g := range b.stack[i:] {
				chain = append(chain, filepath.Base(g))
			}
			b.probs.Errorf(pos, "%s %q makes a reference cycle (%s → %s); a workflow cannot contain itself",
				what, path, strings.Join(chain, " → "), filepath.Base(abs))
			return nil, nil
		}
	}
	if len(b.sources) >= MaxRefFiles {
		b.probs.Errorf(pos, "%s %q: a workflow may reference at most %d files", what, path, MaxRefFiles)
		return nil, nil
	}
	lim := Limits{MaxBytes: b.opts.limits.MaxBytes - b.refBytes, MaxNodes: b.opts.limits.MaxNodes - b.refNodes}
	if lim.MaxBytes <= 0 || lim.MaxNodes <= 0 {
		b.probs.Errorf(pos, "%s %q: the referenced files together exceed the limits of one workflow file (%d bytes, %d YAML nodes)",
			what, path, b.opts.limits.MaxBytes, b.opts.limits.MaxNodes)
		return nil, nil
	}
	data, err := ReadFile(name, lim)
	if err != nil {
		hint := ""
		if errors.Is(err, os.ErrNotExist) {
			hint = fmt.Sprintf("; the path is relative to %s", displayDir(pos.File))
		} else if lim.MaxBytes < b.opts.limits.MaxBytes {
			hint = fmt.Sprintf(" (the referenced files together may have %d bytes)", b.opts.limits.MaxBytes)
		}
		b.probs.Errorf(pos, "%s %q: %v%s", what, path, err, hint)
		return nil, nil
	}
	doc, err := parseYAML(data, name, lim)
	if err != nil {
		// The error names the referenced file and its position.
		b.probs.Errorf(load.Pos{}, "%v (referenced from %s)", err, pos)
		return nil, nil
	}
	b.refBytes += int64(len(data))
	b.refNodes += yamlbound.ExpandedSize(doc, lim.MaxNodes)
	b.sources = append(b.sources, Source{Name: filepath.ToSlash(name), Data: data})
	prevFile := b.file
	b.file = name
	b.lines[name] = bytes.Split(data, []byte("\n"))
	b.stack = append(b.stack, abs)
	defer func() {
		b.file = prevFile
		b.stack = b.stack[:len(b.stack)-1]
	}()
	b.refRoot = true
	return b.workflow(load.Resolve(doc), what, sb.s), nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r
		}
		return a
	}
	return p
}

func displayDir(file string) string {
	if file == "" {
		return "the working directory"
	}
	return filepath.Dir(file) + string(filepath.Separator)
}
