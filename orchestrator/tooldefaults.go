package orchestrator

import (
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents/load"
)

// templateKeys are the templated keys of the built-in tool types whose
// arguments the default parameters are read from.
var templateKeys = map[string][]string{
	"read_file":  {"path"},
	"write_file": {"path", "content"},
	"http":       {"method", "url", "headers", "body"},
	"command":    {"command", "dir"},
}

// argRef finds the arguments a template reads: args.<name>, or args
// used any other way (args["x"], args | tojson), which leaves the name empty.
var argRef = regexp.MustCompile(`\bargs\b(\.[A-Za-z_][A-Za-z0-9_]*)?`)

// maxTemplateScan bounds the text scanned for argument names.
const maxTemplateScan = 64 << 10

// defaultParameters is the argument schema of a tool whose agent gives no
// parameters. read_file takes path, write_file path and content (each unless
// its template is given); http and command take the arguments their templates
// read as args.<name> (text, all required). Otherwise, or when a template
// reads args another way, one required text argument: query.
func defaultParameters(typ string, c *load.Config) map[string]any {
	keys, ok := templateKeys[typ]
	if !ok {
		return queryParameters()
	}
	var names []string
	for _, k := range keys {
		n := c.Peek(k)
		if n == nil && (typ == "read_file" || typ == "write_file") {
			names = append(names, k) // read from the call's arguments
			continue
		}
		refs, simple := argNames(n)
		if !simple {
			return queryParameters()
		}
		for _, r := range refs {
			if !slices.Contains(names, r) {
				names = append(names, r)
			}
		}
	}
	if len(names) == 0 {
		return queryParameters()
	}
	props := make(map[string]any, len(names))
	req := make([]any, len(names))
	for i, n := range names {
		props[n] = map[string]any{"type": "string"}
		req[i] = n
	}
	return map[string]any{"type": "object", "properties": props, "required": req}
}

// queryParameters is the default of every other tool: {query: string}.
func queryParameters() map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"query": map[string]any{"type": "string", "description": "What to ask the tool."}},
		"required":   []any{"query"},
	}
}

// argNames lists the args.<name> read in the scalars under n, in order;
// simple is false when args is read any other way or the text is too long.
func argNames(n *yaml.Node) (names []string, simple bool) {
	var text []string
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		n = load.Resolve(n)
		if n == nil {
			return
		}
		if n.Kind == yaml.ScalarNode {
			text = append(text, n.Value)
		}
		for _, k := range n.Content {
			walk(k)
		}
	}
	walk(n)
	size := 0
	for _, s := range text {
		if size += len(s); size > maxTemplateScan {
			return nil, false
		}
		for _, m := range argRef.FindAllStringSubmatch(s, -1) {
			if m[1] == "" {
				return nil, false
			}
			if name := m[1][1:]; !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names, true
}
