package agenttest

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/cogloop/cogloop/agents"
)

// OutputsJSON renders outs for a golden transcript: agent id → the output as
// cogloop records it ([agents.Output.Record]), without formatted_prompt (transcripts show prompts already),
// as indented JSON.
func OutputsJSON(outs *agents.Outputs) (string, error) {
	m := map[string]any{}
	outs.Each(func(id string, o agents.Output) bool {
		om := o.Record()
		delete(om, "formatted_prompt")
		m[id] = om
		return true
	})
	js, err := json.MarshalIndent(m, "", "  ")
	return string(js), err
}

// Golden compares got with the golden file at path, failing t when they
// differ; with update it first rewrites the file with got.
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Fatalf("transcript differs from %s (run with -update after checking the change):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
