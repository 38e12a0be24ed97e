package agenttest

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// Build builds the agent src defines (one YAML mapping, read as the file
// wf.yaml, agent "x") with reg's factory for its type, in w (nil: a workflow
// that defines nothing), as the workflow loader does: type, id and
// depends_on are read first, the keys nobody read are problems after the
// factory ran. A factory error or an unknown type fails the test; load
// problems are returned.
func Build(t testing.TB, reg *agents.Registry, src string, w *Workspace) (agents.Agent, *load.Problems) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(strings.TrimLeft(src, "\n")), &doc); err != nil {
		t.Fatalf("agent YAML: %v", err)
	}
	probs := &load.Problems{}
	c := load.NewConfig("wf.yaml", load.Resolve(&doc), `agent "x"`, probs)
	typ := c.String("type", "")
	c.Accept("id", "depends_on")
	f, ok := reg.Lookup(typ)
	if !ok {
		t.Fatalf("no agent type %q in the registry", typ)
	}
	if w == nil {
		w = &Workspace{}
	}
	a, err := f(w.Builder(), c)
	if err != nil {
		t.Fatalf("build agent of type %q: %v", typ, err)
	}
	c.Done()
	return a, probs
}
