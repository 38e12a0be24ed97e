package serve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Bounds of the walk of the workflows directory.
const (
	maxWorkflows = 500
	maxDepth     = 4
)

// workflow is a workflow file found under the workflows directory.
type workflow struct {
	path    string // the file
	replies string // its scripted replies ("": none)
}

// isWorkflowName reports a YAML file that is not a file of replies.
func isWorkflowName(name string) bool {
	ext := path.Ext(name)
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	base := strings.TrimSuffix(path.Base(name), ext)
	return base != "replies" && !strings.HasSuffix(base, ".replies")
}

// listWorkflows names (slash-separated, relative to root) the workflow files
// under root: YAML files with a top-level orchestrator key, at most maxDepth
// directories down, at most maxWorkflows of them.
func listWorkflows(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || strings.Count(rel, "/") >= maxDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isWorkflowName(rel) || !hasOrchestrator(p) {
			return nil
		}
		out = append(out, rel)
		if len(out) >= maxWorkflows {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list workflows under %s: %w", root, err)
	}
	sort.Strings(out)
	return out, nil
}

// hasOrchestrator reports a file whose first 64 KiB hold a line that starts
// with "orchestrator:".
func hasOrchestrator(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read-only
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "orchestrator:") {
			return true
		}
	}
	return false
}

// errBadWorkflow: a workflow name that is not a workflow under the directory.
var errBadWorkflow = errors.New("not a workflow under the workflows directory")

// resolveWorkflow finds workflow rel (slash-separated, relative to root) and
// its scripted replies; a name that leaves root (.., an absolute path, a
// symbolic link out) is refused.
func resolveWorkflow(root, rel string) (workflow, error) {
	name := filepath.FromSlash(rel)
	if rel == "" || len(rel) > 1000 || !filepath.IsLocal(name) || !isWorkflowName(rel) {
		return workflow{}, fmt.Errorf("workflow %q: %w (give its path relative to it, as GET /api/workflows lists them)", clipName(rel), errBadWorkflow)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return workflow{}, fmt.Errorf("workflows directory: %w", err)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(realRoot, name))
	if err != nil {
		return workflow{}, fmt.Errorf("workflow %q: %w", clipName(rel), errBadWorkflow)
	}
	if r, err := filepath.Rel(realRoot, p); err != nil || !filepath.IsLocal(r) {
		return workflow{}, fmt.Errorf("workflow %q: %w (it links out of the directory)", clipName(rel), errBadWorkflow)
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return workflow{}, fmt.Errorf("workflow %q: %w", clipName(rel), errBadWorkflow)
	}
	return workflow{path: p, replies: repliesOf(realRoot, p)}, nil
}

// repliesOf is the scripted replies beside workflow p: X.replies.yaml next to
// X.yaml, or replies.yaml next to workflow.yaml; "" when there are none.
func repliesOf(root, p string) string {
	ext := filepath.Ext(p)
	candidates := []string{strings.TrimSuffix(p, ext) + ".replies" + ext}
	if strings.TrimSuffix(filepath.Base(p), ext) == "workflow" {
		candidates = append(candidates, filepath.Join(filepath.Dir(p), "replies"+ext))
	}
	for _, c := range candidates {
		r, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, r); err == nil && filepath.IsLocal(rel) {
			return r
		}
	}
	return ""
}

func clipName(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
