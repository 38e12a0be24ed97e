package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cogloop/cogloop/agents"
)

// violation is one broken invariant.
type violation struct {
	category string // fork_join, routing, cycles, tool_errors, schema, depth, loops
	critical bool   // OrKa's severity error; false is a warning
	message  string
}

// Check runs OrKa's invariant checks (and cogloop's loop check) over an
// execution record and returns the facts in OrKa's compact shape:
//
//	fork_join_integrity, routing_integrity, tool_integrity, schema_compliance,
//	depth_compliance, loop_integrity: {status: PASS|FAIL, violations: [...]}
//	cycle_detection: {status, cycles_found: [[id, ...]], violations}
//	critical_failures_detected: bool
//	validation_summary: {total_violations, critical_count, warning_count,
//	                     categories_failed, validator_config}
//
// The record's keys are OrKa's: nodes_executed, fork_groups,
// router_decisions, tool_calls, structured_outputs, graph_structure,
// graphscout_candidates, and cogloop's loops.
func Check(cfg Config, data map[string]any) map[string]any {
	c := &checker{cfg: cfg, data: data, executed: strs(data["nodes_executed"])}
	c.forkJoin()
	c.routing()
	cycles := c.cycles()
	c.toolErrors()
	c.schema()
	c.depth()
	c.loops()
	return facts(cfg, c.vs, cycles)
}

// checker collects the violations of one execution record, one invariant
// at a time, in OrKa's order.
type checker struct {
	cfg      Config
	data     map[string]any
	executed []string // nodes_executed
	vs       []violation
}

func (c *checker) add(cat string, critical bool, format string, args ...any) {
	c.vs = append(c.vs, violation{category: cat, critical: critical, message: fmt.Sprintf(format, args...)})
}

// forkJoin: every fork joined, every branch completed.
func (c *checker) forkJoin() {
	groups := mapping(c.data["fork_groups"])
	for _, id := range keys(groups) {
		st := mapping(groups[id])
		if b, _ := st["has_join"].(bool); !b {
			c.add("fork_join", true, "Fork '%s' has no matching join node", id)
		}
		expected, completed := branchSet(st["branches"]), branchSet(st["completed_branches"])
		if !slices.Equal(expected, completed) {
			var missing []string
			for _, b := range expected {
				if !slices.Contains(completed, b) {
					missing = append(missing, b)
				}
			}
			c.add("fork_join", true, "Fork '%s' missing results from branches: %s", id, strings.Join(missing, ", "))
		}
	}
}

// routing: a target chosen, existing, with an edge from the router.
func (c *checker) routing() {
	graph := mapping(c.data["graph_structure"])
	nodes := mapping(graph["nodes"])
	decisions := mapping(c.data["router_decisions"])
	for _, id := range keys(decisions) {
		target := agents.Text(mapping(decisions[id])["chosen_target"])
		if target == "" {
			c.add("routing", true, "Router '%s' made no target selection", id)
			continue
		}
		if _, ok := nodes[target]; !ok {
			c.add("routing", true, "Router '%s' selected non-existent target '%s'", id, target)
		}
		if !hasEdge(list(graph["edges"]), id, target) {
			c.add("routing", false, "Router '%s' selected target '%s' with no direct edge", id, target)
		}
	}
}

// hasEdge reports an edge src → dst among edges.
func hasEdge(edges []any, src, dst string) bool {
	for _, e := range edges {
		em := mapping(e)
		if agents.Text(em["src"]) == src && agents.Text(em["dst"]) == dst {
			return true
		}
	}
	return false
}

// cycles: an agent run more than once that is not allowed to re-enter. It
// returns the cycles found: the run of nodes from each visit to the next.
func (c *checker) cycles() []any {
	var cycles []any
	seen := map[string][]int{}
	var order []string
	for i, id := range c.executed {
		if _, ok := seen[id]; !ok {
			order = append(order, id)
		}
		seen[id] = append(seen[id], i)
	}
	for _, id := range order {
		pos := seen[id]
		if len(pos) < 2 || slices.Contains(c.cfg.AllowReentrant, id) {
			continue
		}
		for i := 0; i+1 < len(pos); i++ {
			seg := make([]any, 0, pos[i+1]-pos[i]+1)
			for _, s := range c.executed[pos[i] : pos[i+1]+1] {
				seg = append(seg, s)
			}
			cycles = append(cycles, seg)
		}
		c.add("cycles", true, "Unexpected cycle detected: node '%s' appears %d times", id, len(pos))
	}
	return cycles
}

// toolErrors: an error the run went on after without handling it.
func (c *checker) toolErrors() {
	for _, tc := range list(c.data["tool_calls"]) {
		m := mapping(tc)
		switch agents.Text(m["status"]) {
		case "error":
			handled, _ := m["error_handled"].(bool)
			continued, _ := m["execution_continued_after_error"].(bool)
			if continued && !handled {
				c.add("tool_errors", true, "Tool error in node '%s' was swallowed, execution continued", agents.Text(m["node_id"]))
			}
		case "warning":
			if c.cfg.StrictToolErrors {
				c.add("tool_errors", false, "Tool warning in node '%s' (strict mode)", agents.Text(m["node_id"]))
			}
		}
	}
}

// schema: structured outputs valid against their declared schema.
func (c *checker) schema() {
	so := mapping(c.data["structured_outputs"])
	for _, id := range keys(so) {
		if ok, isBool := mapping(so[id])["schema_valid"].(bool); isBool && !ok {
			c.add("schema", true, "Node '%s' produced output violating declared schema", id)
		}
	}
}

// depth: the path, and each GraphScout candidate's, within max_depth.
func (c *checker) depth() {
	if c.cfg.MaxDepth <= 0 {
		return
	}
	if len(c.executed) > c.cfg.MaxDepth {
		c.add("depth", true, "Path depth %d exceeds max_depth %d", len(c.executed), c.cfg.MaxDepth)
	}
	for _, cand := range list(c.data["graphscout_candidates"]) {
		if n := len(list(mapping(cand)["path"])); n > c.cfg.MaxDepth {
			c.add("depth", true, "GraphScout candidate depth %d exceeds max_depth %d", n, c.cfg.MaxDepth)
		}
	}
}

// loops (cogloop): a loop that stopped on an error.
func (c *checker) loops() {
	loops := mapping(c.data["loops"])
	for _, id := range keys(loops) {
		if r := agents.Text(mapping(loops[id])["stop_reason"]); r == "error" {
			c.add("loops", true, "Loop '%s' stopped on an error", id)
		}
	}
}

func facts(cfg Config, vs []violation, cycles []any) map[string]any {
	block := func(cat string) map[string]any {
		msgs := []any{}
		failed := false
		for _, v := range vs {
			if v.category == cat {
				msgs = append(msgs, v.message)
				// OrKa fails routing on a missing edge (a warning) too.
				failed = failed || v.critical || cat == "routing"
			}
		}
		status := "PASS"
		if failed {
			status = "FAIL"
		}
		return map[string]any{"status": status, "violations": msgs}
	}
	cyc := block("cycles")
	if cycles == nil {
		cycles = []any{}
	}
	cyc["cycles_found"] = cycles
	critical, warnings := 0, 0
	failedCats := []any{}
	for _, v := range vs {
		if !v.critical {
			warnings++
			continue
		}
		critical++
		if !slices.Contains(failedCats, any(v.category)) {
			failedCats = append(failedCats, v.category)
		}
	}
	reentrant := make([]any, len(cfg.AllowReentrant))
	for i, s := range cfg.AllowReentrant {
		reentrant[i] = s
	}
	var maxDepth any
	if cfg.MaxDepth > 0 {
		maxDepth = cfg.MaxDepth
	}
	return map[string]any{
		"fork_join_integrity":        block("fork_join"),
		"routing_integrity":          block("routing"),
		"cycle_detection":            cyc,
		"tool_integrity":             block("tool_errors"),
		"schema_compliance":          block("schema"),
		"depth_compliance":           block("depth"),
		"loop_integrity":             block("loops"),
		"critical_failures_detected": critical > 0,
		"validation_summary": map[string]any{
			"total_violations":  len(vs),
			"critical_count":    critical,
			"warning_count":     warnings,
			"categories_failed": failedCats,
			"validator_config": map[string]any{
				"max_depth":             maxDepth,
				"allow_reentrant_nodes": reentrant,
				"strict_tool_errors":    cfg.StrictToolErrors,
			},
		},
	}
}

// branchSet lists branches as comparable strings (a branch given as a list
// of ids becomes "a>b"), sorted and without repeats.
func branchSet(v any) []string {
	var out []string
	for _, b := range list(v) {
		s := agents.Text(b)
		if l, ok := b.([]any); ok {
			s = strings.Join(strs(l), ">")
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func mapping(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func strs(v any) []string {
	l := list(v)
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, agents.Text(x))
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
