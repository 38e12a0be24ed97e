package orchestrator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/orchestrator"
)

// FuzzLoad feeds arbitrary bytes to the workflow loader with every built-in
// agent type registered. A load never panics, and it either builds a
// workflow or reports problems that name the file.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../examples/*/workflow.yaml")
	more, _ := filepath.Glob("../testdata/orka/*.yaml")
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", "orchestrator: {id: w, agents: [a]}\nagents: [{id: a, type: scripted, responses: [hi]}]\n",
		"a: &a [*a]\n", "orchestrator: {id: w, agents: [l]}\nagents:\n  - {id: l, type: loop, max_loops: 1e300, timeout: NaN}\n",
		"orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n    stop_when: [{while: \"{{\", check: before}]\n",
		"---\n---\n", "\xff\xfe", "orchestrator: [\n",
	} {
		f.Add([]byte(s))
	}
	reg := cogloop.NewRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		wf, problems, err := orchestrator.Parse(data, "fuzz.yaml", reg)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("a load error must name the file: %v", err)
			}
			return
		}
		if wf == nil {
			t.Fatalf("no error and no workflow (problems %v)", problems)
		}
		for _, p := range problems {
			if !strings.Contains(p.Error(), "fuzz.yaml") {
				t.Fatalf("a problem must name the file: %v", p)
			}
		}
	})
}
