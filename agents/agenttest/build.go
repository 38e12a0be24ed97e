package agenttest

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// Builder is the [agents.Builder] of one agent built outside a workflow:
// it parses templates with the default options and has no nested
// workflows, inline agents or references.
type Builder struct{}

var _ agents.Builder = Builder{}

func (Builder) Workflow(*yaml.Node, string) (agents.Agent, error) {
	return nil, errors.New("no nested workflows outside a workflow")
}

func (Builder) Inline(*yaml.Node) (agents.Agent, error) {
	return nil, errors.New("no inline agents outside a workflow")
}

func (Builder) Ref(string, load.Pos) (agents.Agent, error) {
	return nil, errors.New("no references outside a workflow")
}

// Template parses key of c with the default template options; a syntax
// error is a problem of c.
func (Builder) Template(c *load.Config, key string) *prompt.Template {
	n := c.Node(key)
	if n == nil {
		return nil
	}
	t, err := prompt.Parse(key, n.Value, prompt.Options{})
	if err != nil {
		c.Errorf(key, "%v", err)
		return nil
	}
	return t
}

// Build builds the agent src defines (one YAML mapping, read as the file
// wf.yaml, agent "x") with reg's factory for its type, as the workflow
// loader does: type, id and depends_on are read first, the keys nobody
// read are problems after the factory ran. b nil means [Builder]. A factory
// error or an unknown type fails the test; load problems are returned.
func Build(t testing.TB, reg *agents.Registry, src string, b agents.Builder) (agents.Agent, *load.Problems) {
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
	if b == nil {
		b = Builder{}
	}
	a, err := f(b, c)
	if err != nil {
		t.Fatalf("build agent of type %q: %v", typ, err)
	}
	c.Done()
	return a, probs
}
