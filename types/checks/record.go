package checks

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/internal/values"
)

// RunRecord builds the execution record of the agents already run (in OrKa's
// get_execution_artifacts shape, from cogloop's own outputs):
//
//   - nodes_executed: the agents in run order, and graph_structure the chain
//     through them;
//   - fork_groups: each fork with its branch agents, the ones that answered
//     (completed_branches) and whether a join of it ran;
//   - router_decisions: each router's first chosen agent;
//   - tool_calls: each failed agent (status error); the failed children of a
//     failover that answered count as handled;
//   - loops: each loop's loops_completed and stop_reason.
func RunRecord(prev *agents.Outputs) map[string]any {
	r := recorder{executed: []any{}, forks: map[string]any{}, routers: map[string]any{}, tools: []any{},
		loops: map[string]any{}, joined: map[string]bool{}}
	prev.Each(func(id string, out agents.Output) bool {
		r.add(id, out)
		return true
	})
	for id, st := range r.forks {
		st.(map[string]any)["has_join"] = r.joined[id]
	}
	return map[string]any{
		"nodes_executed":     r.executed,
		"fork_groups":        r.forks,
		"router_decisions":   r.routers,
		"graph_structure":    chain(r.executed),
		"tool_calls":         r.tools,
		"structured_outputs": map[string]any{},
		"loops":              r.loops,
	}
}

// recorder builds an execution record one agent's output at a time.
type recorder struct {
	executed []any
	forks    map[string]any // fork id → its fork group
	routers  map[string]any
	tools    []any
	loops    map[string]any
	joined   map[string]bool // fork ids a join of ran
}

// add records agent id's output out.
func (r *recorder) add(id string, out agents.Output) {
	r.executed = append(r.executed, id)
	if out.Failed() {
		r.tools = append(r.tools, map[string]any{"node_id": id, "status": "error", "error": out.Err,
			"error_handled": false, "execution_continued_after_error": true})
		return
	}
	f := out.Fields
	switch {
	case f["status"] == "forked":
		r.forks[id] = forkGroup(id, out)
	case f["status"] == "done" && f["merged"] != nil:
		r.joined[agents.Text(f["fork_group"])] = true
	case f["decision_key"] != nil:
		r.routers[id] = routerDecision(out)
	case f["successful_child"] != nil:
		// a failover that answered: its failed children were handled
		out.Children.Each(func(child string, o agents.Output) bool {
			if o.Failed() {
				r.tools = append(r.tools, map[string]any{"node_id": child, "status": "error", "error": o.Err,
					"error_handled": true, "execution_continued_after_error": true})
			}
			return true
		})
	}
	if _, ok := f["loops_completed"]; ok {
		r.loops[id] = map[string]any{"loops_completed": f["loops_completed"], "stop_reason": f["stop_reason"]}
	}
}

// forkGroup is fork id's group: its branch agents and those that answered.
func forkGroup(id string, out agents.Output) map[string]any {
	var branches, completed []any
	for _, b := range list(out.Fields["agents"]) {
		branches = append(branches, b)
		if o, ok := out.Children.Get(agents.Text(b)); ok && !o.Failed() {
			completed = append(completed, b)
		}
	}
	return map[string]any{"branches": branches, "completed_branches": completed, "fork_group_id": id}
}

// routerDecision is a router's first chosen agent and all it chose.
func routerDecision(out agents.Output) map[string]any {
	if ids, ok := out.Response.([]string); ok && len(ids) > 0 {
		return map[string]any{"chosen_target": ids[0], "target_nodes_executed": values.List(ids)}
	}
	if l := list(out.Response); len(l) > 0 {
		return map[string]any{"chosen_target": l[0], "target_nodes_executed": l}
	}
	return map[string]any{"chosen_target": nil}
}

// chain is the graph_structure of agents run one after another: a node for
// each, an edge from each to the next.
func chain(executed []any) map[string]any {
	nodes := map[string]any{}
	edges := []any{}
	for i, id := range executed {
		nodes[id.(string)] = map[string]any{}
		if i+1 < len(executed) {
			edges = append(edges, map[string]any{"src": id, "dst": executed[i+1]})
		}
	}
	return map[string]any{"nodes": nodes, "edges": edges}
}
