package flow

import (
	"context"
	"strings"
	"unicode"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"go.yaml.in/yaml/v3"
)

// Router picks the agents that run next from an earlier agent's answer (type
// router). It is immutable and safe for concurrent Run calls.
//
// YAML keys, under params as in OrKa: decision_key (the id of the agent whose
// answer decides), routing_map (answer value → agent id or list of agent ids),
// fallback_route (the agents to run when no value matches; OrKa documents it but
// does not implement it). fallback_route may also stand next to params.
//
// The chosen agents run right after the router, before the rest of the queue
// (an [agents.Director]). Matching follows OrKa's ladder: the decision value is
// previous_outputs[decision_key] (its response; a mapping response gives its
// response, else its result); then the first of
//
//  1. a key equal to the value's text;
//  2. a key equal to it trimmed, ignoring case;
//  3. a boolean key (true/yes/1 or false/no/0) for a boolean value;
//  4. for text in which only one side of the standalone words true|yes and
//     false|no appears, that side's boolean key;
//  5. fallback_route;
//
// and otherwise no agent (with a warning event). A key that matches with an empty
// list is a decision to run nothing: it ends the ladder.
type Router struct {
	id       string
	key      string
	routes   []route
	fallback *route
	steps    map[string]agents.Step
	refs     []string
}

type route struct {
	key   string
	lower string
	bool  int8 // -1 not a boolean key, 0 false, 1 true
	steps []agents.Step
}

var (
	_ agents.Agent    = (*Router)(nil)
	_ agents.Director = (*Router)(nil)
	_ agents.Referrer = (*Router)(nil)
)

// How a route was chosen (the output's match field).
const (
	MatchExact    = "exact"
	MatchFolded   = "normalized"
	MatchBoolean  = "boolean"
	MatchText     = "text"
	MatchFallback = "fallback"
	MatchNone     = "none"
)

// maxDecisionText caps the text the standalone-word rule scans.
const maxDecisionText = 64 << 10

// NewRouter builds a router from its definition (the registry's factory for
// type router). An undefined decision_key or route agent is a load problem.
func NewRouter(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	cfg := RouterConfig{ID: c.String("id", "")}
	c.Ignore(orkaIgnored...)
	params := c.Map("params")
	if params == nil {
		c.Errorf("", "missing params: {decision_key: <agent id>, routing_map: {value: [agent ids]}}")
		return newRouter(cfg), nil
	}
	defer params.Done()

	cfg.DecisionKey = strings.TrimSpace(params.String("decision_key", ""))
	if cfg.DecisionKey == "" {
		params.Errorf("", "missing decision_key: the id of the agent whose answer picks the route")
	} else if _, found := b.TypeOf(cfg.DecisionKey); !found {
		params.Errorf("decision_key", "decision_key names %q, which no agent of this workflow defines", cfg.DecisionKey)
	}

	cfg.Routes = readRoutes(b, params)
	cfg.Fallback = readFallback(b, c, params)
	return newRouter(cfg), nil
}

// readRoutes reads params' routing_map: answer value → agent ids.
func readRoutes(b *agents.Builder, params *load.Config) []Route {
	rm := params.Node("routing_map")
	switch {
	case rm == nil || (rm.Kind == yaml.ScalarNode && rm.Tag == "!!null"):
		params.Errorf("", "missing routing_map: answer value → agent ids, e.g. routing_map: {\"true\": [search], \"false\": [answer]}")
		return nil
	case rm.Kind != yaml.MappingNode:
		params.Errorf("routing_map", "routing_map must be a mapping of answer values to agent ids, not %s", load.KindName(rm))
		return nil
	case len(rm.Content) == 0:
		params.Errorf("routing_map", "routing_map is empty: map at least one answer value to agent ids")
		return nil
	}
	var routes []Route
	seen := map[string]load.Pos{}
	for i := 0; i+1 < len(rm.Content); i += 2 {
		k := load.Resolve(rm.Content[i])
		if k.Kind != yaml.ScalarNode {
			params.Problems().Errorf(params.PosOf(k), "%s: routing_map keys must be answer values, not %s", params.What(), load.KindName(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			params.Problems().Errorf(params.PosOf(k), "%s: routing_map has the key %q twice (first at %s)", params.What(), k.Value, first)
			continue
		}
		seen[k.Value] = params.PosOf(k)
		routes = append(routes, Route{Key: k.Value, Steps: resolve(b, params, "routing_map", rm.Content[i+1])})
	}
	return routes
}

// readFallback reads fallback_route, under params or beside them (one of
// the two): nil when none is given.
func readFallback(b *agents.Builder, c, params *load.Config) []agents.Step {
	fbConfig, fbNode := params, params.Node("fallback_route")
	if top := c.Node("fallback_route"); top != nil {
		if fbNode != nil {
			c.Errorf("fallback_route", "fallback_route is given twice (here and under params); keep one")
		} else {
			fbConfig, fbNode = c, top
		}
	}
	if fbNode == nil || (fbNode.Kind == yaml.ScalarNode && fbNode.Tag == "!!null") {
		return nil
	}
	if fb := resolve(b, fbConfig, "fallback_route", fbNode); fb != nil {
		return fb
	}
	return []agents.Step{}
}

// resolve reads a route's agent ids and finds their agents.
func resolve(b *agents.Builder, c *load.Config, key string, n *yaml.Node) []agents.Step {
	ids, pos := idList(c, key, n)
	steps := make([]agents.Step, 0, len(ids))
	for i, id := range ids {
		st, ok := ref(b, c, key, id, pos[i])
		if !ok {
			continue
		}
		steps = append(steps, st)
	}
	return steps
}

// Refs lists every agent a route names, in file order.
func (r *Router) Refs() []string { return append([]string(nil), r.refs...) }

// Run chooses the route. Its response is the list of the chosen agent ids, as in
// OrKa; its fields say how: decision_key, decision_value, route (the matching
// key) and match (exact, normalized, boolean, text, fallback or none).
func (r *Router) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	var value any
	if o, ok := in.Previous.Get(r.key); ok {
		value = decisionValue(o)
	}
	rt, how := r.choose(value)
	ids := []any{}
	routeKey := any(nil)
	if rt != nil {
		routeKey = rt.key
		for _, st := range rt.steps {
			ids = append(ids, st.ID)
		}
	}
	if how == MatchNone {
		in.Run.Emit(event.Event{Kind: event.Warning, Node: in.Path, Agent: r.id, Type: TypeRouter,
			Message: "no route for the answer of " + r.key + " (" + fault.Truncate(agents.Text(value), 80) + ") and no fallback_route; nothing runs"})
	}
	return agents.Output{
		Response: ids,
		Fields:   map[string]any{"decision_key": r.key, "decision_value": value, "route": routeKey, "match": how},
	}, nil
}

// Next returns the agents of the route out chose.
func (r *Router) Next(out agents.Output) []agents.Step {
	ids, _ := out.Response.([]any)
	if len(ids) == 0 {
		return nil
	}
	steps := make([]agents.Step, 0, len(ids))
	for _, id := range ids {
		if s, ok := id.(string); ok {
			if st, ok := r.steps[s]; ok {
				steps = append(steps, st)
			}
		}
	}
	return steps
}

// decisionValue unwraps an output as OrKa's router does: the response; from a
// mapping response its response, else its result. An error record gives nil.
func decisionValue(o agents.Output) any {
	if o.Failed() {
		return nil
	}
	v := o.Response
	if m, ok := v.(map[string]any); ok {
		if r, ok := m["response"]; ok {
			return r
		}
		if r, ok := m["result"]; ok {
			return r
		}
	}
	return v
}

// choose runs the matching ladder.
func (r *Router) choose(value any) (*route, string) {
	if value != nil {
		text := agents.Text(value)
		for i := range r.routes {
			if r.routes[i].key == text {
				return &r.routes[i], MatchExact
			}
		}
		folded := fold(text)
		for i := range r.routes {
			if r.routes[i].lower == folded {
				return &r.routes[i], MatchFolded
			}
		}
		if b := boolKey(text); b >= 0 {
			if rt := r.boolRoute(b); rt != nil {
				return rt, MatchBoolean
			}
		}
		if b := boolWords(text); b >= 0 {
			if rt := r.boolRoute(b); rt != nil {
				return rt, MatchText
			}
		}
	}
	if r.fallback != nil {
		return r.fallback, MatchFallback
	}
	return nil, MatchNone
}

func (r *Router) boolRoute(b int8) *route {
	for i := range r.routes {
		if r.routes[i].bool == b {
			return &r.routes[i]
		}
	}
	return nil
}

func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// boolKey reads true/yes/1 as 1 and false/no/0 as 0; anything else is -1.
func boolKey(s string) int8 {
	switch fold(s) {
	case "true", "yes", "1":
		return 1
	case "false", "no", "0":
		return 0
	}
	return -1
}

// boolWords looks for the standalone words true|yes and false|no in s (at most
// maxDecisionText bytes of it): 1 or 0 when only one side appears, else -1.
func boolWords(s string) int8 {
	if len(s) > maxDecisionText {
		s = s[:maxDecisionText]
	}
	yes, no := false, false
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		switch strings.ToLower(w) {
		case "true", "yes":
			yes = true
		case "false", "no":
			no = true
		}
	}
	switch {
	case yes && !no:
		return 1
	case no && !yes:
		return 0
	}
	return -1
}
