package schema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/schema"
	"github.com/cogloop/cogloop/schema/schematest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestCommittedSchemaIsCurrent(t *testing.T) {
	want, err := schema.Generate(cogloop.NewRegistry())
	require.NoError(t, err)
	got, err := os.ReadFile("workflow.schema.json")
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		t.Fatal("schema/workflow.schema.json is stale: run 'go generate ./schema' and commit the result")
	}
}

// workflowFiles are the workflow files under examples/ and every testdata/
// directory of the module that the loader accepts with the built-in types:
// the schema must accept each of them.
func workflowFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{".."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "bench" || strings.HasPrefix(d.Name(), ".") && d.Name() != ".." {
					return filepath.SkipDir // its own module; hidden directories
				}
				return nil
			}
			slash := filepath.ToSlash(path)
			if !strings.HasPrefix(slash, "../examples/") && !strings.Contains(slash, "/testdata/") {
				return nil
			}
			if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var top map[string]any
			if yaml.Unmarshal(data, &top) != nil || top["orchestrator"] == nil {
				return nil // a replies file, not a workflow
			}
			if _, err := cogloop.Load(path); err == nil {
				out = append(out, path)
			}
			return nil
		})
		require.NoError(t, err)
	}
	return out
}

func TestEveryWorkflowValidates(t *testing.T) {
	files := workflowFiles(t)
	require.GreaterOrEqual(t, len(files), 20, "the corpus shrank: %v", files)
	var orka int
	for _, f := range files {
		if strings.Contains(f, "orka") {
			orka++
		}
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			if err := schematest.ValidateYAML(data); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		})
	}
	require.Positive(t, orka, "no testdata/orka file was validated")
}

func TestBadWorkflowsFail(t *testing.T) {
	const base = `
orchestrator: {id: w, strategy: sequential, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    internal_workflow:
      orchestrator: {id: inner, agents: [a]}
      agents:
        - {id: a, type: scripted, responses: ["SCORE: 0.9"]}
`
	require.NoError(t, schematest.ValidateYAML([]byte(base)), "the base case must be valid")
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown top-level key", "agents:\n", "agentz: []\nagents:\n", "agentz"},
		{"unknown agent key", "max_loops: 3", "max_loopz: 3", "max_loopz"},
		{"wrong type", "max_loops: 3", "max_loops: [3]", "max_loops"},
		{"out of range", "max_loops: 3", "max_loops: 0", "max_loops"},
		{"unknown type", "type: loop", "type: lop", "type"},
		{"unknown key inside internal_workflow", `type: scripted, responses`, `type: scripted, promt: x, responses`, "promt"},
		{"missing id", "- id: l\n    type: loop", "- type: loop", "id"},
		{"missing orchestrator", "orchestrator: {id: w, strategy: sequential, agents: [l]}\n", "", "orchestrator"},
		{"missing orchestrator agents", "{id: inner, agents: [a]}", "{id: inner}", "agents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(base, tc.from, tc.to, 1)
			require.NotEqual(t, base, bad)
			err := schematest.ValidateYAML([]byte(bad))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			_, loadErr := cogloop.Parse([]byte(bad), "bad.yaml")
			require.Error(t, loadErr, "the loader must refuse what the schema refuses")
		})
	}
}

// The schema is what the factories read: a type registered with its own
// keys gets exactly those keys, with the type, range and default the factory
// asks for, and the keys every definition has.
func TestSchemaFollowsTheFactories(t *testing.T) {
	reg := agents.NewRegistry()
	reg.MustRegister("custom", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		c.Int("tries", 2, 1, 5)
		if o := c.Map("options"); o != nil {
			o.Bool("loud", false)
			o.Done()
		}
		c.IgnoreBecause("(it is OrKa's)", "legacy_key")
		return nil, nil
	})
	doc, err := schema.Generate(reg)
	require.NoError(t, err)
	var got struct {
		Defs map[string]struct {
			Properties map[string]map[string]any `json:"properties"`
			Additional *bool                     `json:"additionalProperties"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(doc, &got))
	custom := got.Defs["agent_custom"]
	require.NotNil(t, custom.Properties, "the type has its definition")
	assert.Equal(t, map[string]any{"type": "integer", "minimum": 1.0, "maximum": 5.0, "default": 2.0}, custom.Properties["tries"])
	assert.Equal(t, "object", custom.Properties["options"]["type"])
	assert.Equal(t, false, custom.Properties["options"]["additionalProperties"])
	assert.Equal(t, true, custom.Properties["legacy_key"]["deprecated"])
	assert.Contains(t, custom.Properties["legacy_key"]["description"], "(it is OrKa's)")
	for _, k := range []string{"id", "type", "depends_on", "timeout", "retry"} {
		assert.Contains(t, custom.Properties, k, "every definition has %s", k)
	}
	require.NotNil(t, custom.Additional)
	assert.False(t, *custom.Additional, "other keys are refused, as the loader refuses them")
}
