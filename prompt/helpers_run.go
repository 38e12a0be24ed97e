package prompt

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// OrKa's helpers about the run so far: its execution artifacts, the debate's
// evolution across loop passes, and an agent's memory context. OrKa registers
// two get_debate_evolution functions; the one templates get (the later
// registration) is the no-argument one of its memory helpers, implemented
// here. Results that OrKa builds as dicts are ordered mappings, so that
// to_json_string and repr list their keys in OrKa's order.

// odict builds an ordered mapping from key, value pairs.
func odict(kv ...any) *exec.Dict {
	d := exec.NewDict()
	for i := 0; i+1 < len(kv); i += 2 {
		d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(kv[i]), Value: toValue(kv[i+1])})
	}
	return d
}

func (d *Data) isPrevious(v any) bool {
	x := unval(v)
	if od, ok := x.(*pyvalue.Dict); ok { // previous_outputs in run order
		x = od.Map()
	}
	a, b := reflect.ValueOf(x), reflect.ValueOf(d.Previous)
	return a.Kind() == reflect.Map && b.Kind() == reflect.Map && a.UnsafePointer() == b.UnsafePointer()
}

// getExecutionArtifacts is OrKa's get_execution_artifacts(previous_outputs):
// the agents that ran (in run order for the render's previous_outputs), fork
// groups, router decisions, and the chain of agents as a graph. Without an
// argument it reads the render's previous_outputs (OrKa's returns the empty
// shape). A fork is an output (or its response or result) with status
// "forked"; a router decision is a response naming another agent that ran
// (OrKa's rule) or a router's list of chosen agents (cogloop's router output,
// with decision_key).
func getExecutionArtifacts(c call) (any, error) {
	a, err := c.args("previous_outputs")
	if err != nil {
		return nil, err
	}
	var prev any = c.d.Previous
	if given(a[0]) {
		prev = unval(a[0])
	}
	var ids []string
	if c.d.isPrevious(prev) {
		ids = c.d.previousIDs()
	} else if isMapping(prev) {
		ids = mapKeys(prev)
	}
	ran := make(map[string]bool, len(ids))
	for _, id := range ids {
		ran[id] = true
	}
	forks, routes := exec.NewDict(), exec.NewDict()
	for _, id := range ids {
		out, _ := mapGet(prev, id)
		if !isMapping(out) {
			continue
		}
		if f, ok := forkOf(out); ok {
			group, ok := mapGet(f, "fork_group")
			if !ok {
				group = id
			}
			branches, ok := mapGet(f, "agents")
			if !ok {
				branches = []any{}
			}
			forks.Pairs = append(forks.Pairs, &exec.Pair{Key: exec.AsValue(id), Value: exec.AsValue(odict(
				"has_join", true, "branches", branches, "completed_branches", branches, "fork_group_id", group))})
		}
		if chosen, targets, ok := routeOf(out, ran); ok {
			routes.Pairs = append(routes.Pairs, &exec.Pair{Key: exec.AsValue(id), Value: exec.AsValue(odict(
				"chosen_target", chosen, "target_nodes_executed", targets))})
		}
	}
	graphNodes := exec.NewDict()
	edges := []any{}
	executed := make([]any, len(ids))
	for i, id := range ids {
		executed[i] = id
		graphNodes.Pairs = append(graphNodes.Pairs, &exec.Pair{Key: exec.AsValue(id), Value: exec.AsValue(exec.NewDict())})
		if i+1 < len(ids) {
			edges = append(edges, odict("src", id, "dst", ids[i+1]))
		}
	}
	return odict(
		"nodes_executed", executed,
		"fork_groups", forks,
		"router_decisions", routes,
		"graph_structure", odict("nodes", graphNodes, "edges", edges),
		"tool_calls", []any{},
		"structured_outputs", exec.NewDict(),
	), nil
}

// forkOf returns the mapping that says out is a fork's output.
func forkOf(out any) (any, bool) {
	for _, k := range []string{"", "response", "result"} {
		m := out
		if k != "" {
			m, _ = mapGet(out, k)
		}
		if !isMapping(m) {
			continue
		}
		if s, ok := mapGet(m, "status"); ok && pyStr(s) == "forked" {
			return m, true
		}
	}
	return nil, false
}

// routeOf returns the decision of a router's output: the chosen agent and the
// chosen agents that ran.
func routeOf(out any, ran map[string]bool) (any, []any, bool) {
	resp, _ := mapGet(out, "response")
	if s, ok := unval(resp).(string); ok && ran[s] {
		return s, []any{s}, true
	}
	if _, ok := mapGet(out, "decision_key"); !ok || !isList(resp) || listLen(resp) == 0 {
		return nil, nil, false
	}
	first, _ := listAt(resp, 0)
	targets := []any{}
	for i := range listLen(resp) {
		v, _ := listAt(resp, i)
		if s, ok := unval(v).(string); ok && ran[s] {
			targets = append(targets, s)
		}
	}
	return first, targets, true
}

// getDebateEvolution is OrKa's get_debate_evolution(): "First round of
// debate" before any past loop, else "Round 1: Agreement <agreement_score> ->
// Round 2: ...". An optional argument replaces the render's past loops.
func getDebateEvolution(c call) (any, error) {
	a, err := c.args("past_loops")
	if err != nil {
		return nil, err
	}
	loops := pastLoops(c.d)
	if given(a[0]) {
		loops = unval(a[0])
	}
	if !truthy(loops) || !isList(loops) {
		return "First round of debate", nil
	}
	parts := make([]string, listLen(loops))
	for i := range parts {
		loop, _ := listAt(loops, i)
		score, ok := mapGet(loop, "agreement_score")
		if !ok {
			score = "Unknown"
		}
		parts[i] = fmt.Sprintf("Round %d: Agreement %s", i+1, pyStr(score))
	}
	return strings.Join(parts, " -> "), nil
}

// memories are the memories a render can see: a memories variable, else the
// memories lists of the outputs before it (memory readers), in run order.
func memories(d *Data) []any {
	if m, ok := d.bound("memories"); ok {
		return toList(toValue(m))
	}
	var all []any
	for _, id := range d.previousIDs() {
		if m, ok := mapGet(d.Previous[id], "memories"); ok && isList(m) {
			all = append(all, toList(toValue(m))...)
		}
	}
	return all
}

const noMemory = "No past memory available"

// pastMemory is OrKa's get_my_past_memory: the contents of the last three
// memories whose metadata.agent_type is agentType, one per line.
func pastMemory(d *Data, agentType string) string {
	mems := memories(d)
	if len(mems) == 0 {
		return noMemory
	}
	var mine []string
	for _, m := range mems {
		if !isMapping(m) {
			continue
		}
		meta, _ := mapGet(m, "metadata")
		if t, ok := mapGet(meta, "agent_type"); ok && pyStr(t) == agentType {
			content, _ := mapGet(m, "content")
			mine = append(mine, pyStr(content))
		}
	}
	if len(mine) == 0 {
		return "No past memory for this agent type"
	}
	return strings.Join(mine[max(len(mine)-3, 0):], "\n")
}

// pastDecisions is OrKa's get_my_past_decisions: "Loop <round>: <value>" for
// the last two past loops that recorded a value under agentName.
func pastDecisions(d *Data, agentName string) string {
	loops := pastLoops(d)
	if !truthy(loops) || !isList(loops) {
		return "No past decisions available"
	}
	var mine []string
	for i := range listLen(loops) {
		loop, _ := listAt(loops, i)
		v, ok := mapGet(loop, agentName)
		if !ok {
			continue
		}
		round, ok := mapGet(loop, "round")
		if !ok {
			round = "?"
		}
		mine = append(mine, fmt.Sprintf("Loop %s: %s", pyStr(round), pyStr(v)))
	}
	if len(mine) == 0 {
		return "No past decisions for " + agentName
	}
	return strings.Join(mine[max(len(mine)-2, 0):], "\n")
}

func getMyPastMemory(c call) (any, error) {
	a, err := c.args("agent_type")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, fmt.Errorf("missing argument 'agent_type'")
	}
	return pastMemory(c.d, pyStr(a[0])), nil
}

func getMyPastDecisions(c call) (any, error) {
	a, err := c.args("agent_name")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, fmt.Errorf("missing argument 'agent_name'")
	}
	return pastDecisions(c.d, pyStr(a[0])), nil
}

// getAgentMemoryContext is OrKa's get_agent_memory_context(agent_type,
// agent_name): "PAST MEMORY:\n…" and "PAST DECISIONS:\n…" paragraphs, or "No
// past context available". As in OrKa, only the exact "no memories at all" and
// "no decisions for this agent" answers are left out; the others are shown.
func getAgentMemoryContext(c call) (any, error) {
	a, err := c.args("agent_type", "agent_name")
	if err != nil {
		return nil, err
	}
	if a[0] == nil || a[1] == nil {
		return nil, fmt.Errorf("takes 2 arguments: agent_type and agent_name")
	}
	name := pyStr(a[1])
	var parts []string
	if m := pastMemory(c.d, pyStr(a[0])); m != noMemory {
		parts = append(parts, "PAST MEMORY:\n"+m)
	}
	if dec := pastDecisions(c.d, name); dec != "No past decisions for "+name {
		parts = append(parts, "PAST DECISIONS:\n"+dec)
	}
	if len(parts) == 0 {
		return "No past context available", nil
	}
	return strings.Join(parts, "\n\n"), nil
}

// formatMemoryQuery is OrKa's format_memory_query(perspective, topic=None):
// "<Perspective> perspective on: <topic>", the topic defaulting to the input.
func formatMemoryQuery(c call) (any, error) {
	a, err := c.args("perspective", "topic")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, fmt.Errorf("missing argument 'perspective'")
	}
	var topic string
	if given(a[1]) {
		topic = pyStr(a[1])
	} else {
		in, _ := getInput(call{d: c.d, va: &exec.VarArgs{}})
		topic = pyStr(in)
	}
	return pyTitle(pyStr(a[0])) + " perspective on: " + topic, nil
}

// pyTitle is Python's str.title: a letter after a letter is lower case, any
// other letter upper case.
func pyTitle(s string) string {
	var b strings.Builder
	prev := false
	for _, r := range s {
		letter := unicode.IsLetter(r)
		switch {
		case letter && prev:
			b.WriteRune(unicode.ToLower(r))
		case letter:
			b.WriteRune(unicode.ToTitle(r))
		default:
			b.WriteRune(r)
		}
		prev = letter
	}
	return b.String()
}
