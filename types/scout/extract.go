package scout

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxParse bounds the text path_executor parses as JSON or YAML.
const maxParse = 256 << 10

// found is an agent list read from earlier outputs.
type found struct {
	ids      []string
	variant  string // the dotted path that gave it
	decision string // the graph-scout decision that goes with it, if any
}

// variants are the dotted paths tried for source, in OrKa's order: as
// written; without "response" parts; without "result" parts; with
// "response" after the first part when it has none.
func variants(source string) []string {
	parts := strings.Split(source, ".")
	out := []string{source}
	without := func(skip string) []string {
		var v []string
		for _, p := range parts {
			if p != skip {
				v = append(v, p)
			}
		}
		return v
	}
	has := func(s string) bool {
		for _, p := range parts {
			if p == s {
				return true
			}
		}
		return false
	}
	if has("response") {
		out = append(out, strings.Join(without("response"), "."))
	}
	if has("result") {
		out = append(out, strings.Join(without("result"), "."))
	}
	if !has("response") && len(parts) > 1 {
		out = append(out, strings.Join(append([]string{parts[0], "response"}, parts[1:]...), "."))
	}
	return out
}

// navigate follows path through view; it returns the value, the mapping that
// holds it, and why it failed.
func navigate(view map[string]any, path string) (v any, parent map[string]any, why string) {
	var cur any = view
	parts := strings.Split(path, ".")
	for i, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil, fmt.Sprintf("%s is not a mapping", strings.Join(parts[:i], "."))
		}
		next, ok := m[p]
		if !ok {
			return nil, nil, fmt.Sprintf("%s has no key %q", strings.Join(parts[:i], ".")+"", p)
		}
		parent, cur = m, next
	}
	return cur, parent, ""
}

// findPath reads the agent list at source (or one of its [variants]).
func findPath(view map[string]any, source string) (found, error) {
	var whys []string
	for _, vr := range variants(source) {
		v, parent, why := navigate(view, vr)
		if why != "" {
			whys = append(whys, vr+": "+why)
			continue
		}
		v = parsed(v)
		ids, holder := agentList(v, 0)
		if ids == nil {
			if d := decisionOf(v); d != "" {
				return found{variant: vr, decision: d}, nil
			}
			whys = append(whys, vr+": no agent list there")
			continue
		}
		f := found{ids: ids, variant: vr}
		for _, m := range []any{holder, v, parent} {
			if mm, ok := m.(map[string]any); ok {
				if d, ok := mm["decision"].(string); ok {
					f.decision = d
					break
				}
			}
		}
		return f, nil
	}
	return found{}, fmt.Errorf("path_source %q gives no agent list (tried %s)", source, strings.Join(whys, "; "))
}

// parsed returns text holding a JSON or YAML list or mapping as that value;
// anything else as it is.
func parsed(v any) any {
	s, ok := v.(string)
	if !ok || len(s) > maxParse {
		return v
	}
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '[' && t[0] != '{' && !strings.Contains(t, "\n") && !strings.Contains(t, ": ")) {
		return v
	}
	var out any
	if json.Unmarshal([]byte(t), &out) == nil {
		return out
	}
	if yaml.Unmarshal([]byte(t), &out) == nil {
		switch x := out.(type) {
		case []any:
			return x
		case map[string]any:
			return x
		}
	}
	return v
}

// agentList reads agent ids from the shapes OrKa's path executor accepts: a
// list of ids; a list of candidates ({node_id} or {path: [...]}); a mapping
// whose response, result or payload holds one; a decision mapping with
// target or path; a mapping holding such a decision deeper (a loop's
// output); one id. holder is the mapping the list came from, if any.
// It returns nil when v holds no list.
func agentList(v any, depth int) (ids []string, holder map[string]any) {
	if depth > 8 {
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		if id := strings.TrimSpace(x); id != "" && !strings.ContainsAny(id, " \t\n,[]{}") {
			return []string{id}, nil
		}
	case []any:
		return listIDs(x), nil
	case []string:
		return append([]string(nil), x...), nil
	case map[string]any:
		return mappingList(x, depth)
	}
	return nil, nil
}

// listIDs reads a list of ids or candidates ({node_id} or {path: [...]});
// nil when it holds none.
func listIDs(x []any) []string {
	out := make([]string, 0, len(x))
	for _, it := range x {
		switch y := it.(type) {
		case map[string]any:
			if id, ok := y["node_id"]; ok {
				out = append(out, fmt.Sprint(id))
			} else if p, ok := y["path"].([]any); ok {
				for _, id := range p {
					out = append(out, fmt.Sprint(id))
				}
			}
		case string:
			out = append(out, strings.TrimSpace(y))
		case nil:
		default:
			out = append(out, fmt.Sprint(y))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// mappingList reads the list a mapping x holds: under response, result or
// payload; as a decision's target or path; or in a decision deeper.
func mappingList(x map[string]any, depth int) (ids []string, holder map[string]any) {
	for _, k := range []string{"response", "result", "payload"} {
		if n, ok := x[k]; ok {
			if ids, h := agentList(parsed(n), depth+1); len(ids) > 0 {
				if h == nil {
					h = x
				}
				return ids, h
			}
		}
	}
	for _, k := range []string{"target", "path"} {
		if n, ok := x[k]; ok && n != nil {
			if ids, _ := agentList(parsed(n), depth+1); len(ids) > 0 {
				return ids, x
			}
		}
	}
	return nestedDecision(x, depth)
}

// nestedDecision looks through the values of m, keys in sorted order, for
// a graph-scout decision (a mapping with decision and target): a loop's
// output holds its agents' outputs under result, and the decision among
// them is the path.
func nestedDecision(m map[string]any, depth int) ([]string, map[string]any) {
	if depth > 8 {
		return nil, nil
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		sub, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		if _, isDecision := sub["decision"].(string); isDecision {
			if _, hasTarget := sub["target"]; hasTarget {
				if ids, h := agentList(sub, depth+1); len(ids) > 0 {
					return ids, h
				}
			}
		}
		if ids, h := nestedDecision(sub, depth+1); len(ids) > 0 {
			return ids, h
		}
	}
	return nil, nil
}

// decisionOf returns the graph-scout decision in an output or decision
// mapping that holds no agent list (a fallback), looking into nested
// mappings (keys in sorted order) as [nestedDecision] does; "" when none.
func decisionOf(v any) string {
	return findDecision(v, 0)
}

func findDecision(v any, depth int) string {
	m, ok := v.(map[string]any)
	if !ok || depth > 8 {
		return ""
	}
	if d, ok := m["decision"].(string); ok {
		return d
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if d := findDecision(m[k], depth+1); d != "" {
			return d
		}
	}
	return ""
}
