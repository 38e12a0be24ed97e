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
	executed := []any{}
	forks := map[string]any{}
	routers := map[string]any{}
	tools := []any{}
	loops := map[string]any{}
	joined := map[string]bool{}
	prev.Each(func(id string, out agents.Output) bool {
		executed = append(executed, id)
		if out.Failed() {
			tools = append(tools, map[string]any{"node_id": id, "status": "error", "error": out.Err,
				"error_handled": false, "execution_continued_after_error": true})
			return true
		}
		f := out.Fields
		switch {
		case f["status"] == "forked":
			var branches, completed []any
			for _, b := range list(f["agents"]) {
				branches = append(branches, b)
				if o, ok := out.Children.Get(agents.Text(b)); ok && !o.Failed() {
					completed = append(completed, b)
				}
			}
			forks[id] = map[string]any{"branches": branches, "completed_branches": completed, "fork_group_id": id}
		case f["status"] == "done" && f["merged"] != nil:
			joined[agents.Text(f["fork_group"])] = true
		case f["decision_key"] != nil:
			if ids, ok := out.Response.([]string); ok && len(ids) > 0 {
				routers[id] = map[string]any{"chosen_target": ids[0], "target_nodes_executed": values.List(ids)}
			} else if l := list(out.Response); len(l) > 0 {
				routers[id] = map[string]any{"chosen_target": l[0], "target_nodes_executed": l}
			} else {
				routers[id] = map[string]any{"chosen_target": nil}
			}
		case f["successful_child"] != nil:
			out.Children.Each(func(child string, o agents.Output) bool {
				if o.Failed() {
					tools = append(tools, map[string]any{"node_id": child, "status": "error", "error": o.Err,
						"error_handled": true, "execution_continued_after_error": true})
				}
				return true
			})
		}
		if _, ok := f["loops_completed"]; ok {
			loops[id] = map[string]any{"loops_completed": f["loops_completed"], "stop_reason": f["stop_reason"]}
		}
		return true
	})
	for id, st := range forks {
		st.(map[string]any)["has_join"] = joined[id]
	}
	nodes := map[string]any{}
	edges := []any{}
	for i, id := range executed {
		nodes[id.(string)] = map[string]any{}
		if i+1 < len(executed) {
			edges = append(edges, map[string]any{"src": id, "dst": executed[i+1]})
		}
	}
	return map[string]any{
		"nodes_executed":     executed,
		"fork_groups":        forks,
		"router_decisions":   routers,
		"graph_structure":    map[string]any{"nodes": nodes, "edges": edges},
		"tool_calls":         tools,
		"structured_outputs": map[string]any{},
		"loops":              loops,
	}
}
