package cogloop_test

import (
	"github.com/cogloop/cogloop/agents/event"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOrKaCorpus runs every OrKa workflow file in testdata/orka/ (copied
// unchanged from OrKa's repository, see testdata/orka/NOTICE) offline with its
// scripted replies (<name>.replies.yaml; input from <name>.input.txt or a
// question): each must load, run without error, and no agent may fail.
func TestOrKaCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "orka", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yml")
		t.Run(name, func(t *testing.T) {
			if problems := orkaRun(t, path); len(problems) > 0 {
				t.Fatalf("%s:\n%s", path, strings.Join(problems, "\n"))
			}
		})
	}
}

// orkaRun loads and runs one corpus file and lists what went wrong.
func orkaRun(t *testing.T, path string) (problems []string) {
	t.Helper()
	base := strings.TrimSuffix(path, ".yml")
	input := "What is the capital of France?"
	if data, err := os.ReadFile(base + ".input.txt"); err == nil {
		input = strings.TrimSpace(string(data))
	}
	wf, res, events, runErr := offline(t, path, base+".replies.yaml", input)
	if wf == nil {
		return []string{"load: " + runErr.Error()}
	}
	if runErr != nil {
		problems = append(problems, "run: "+runErr.Error())
	}
	if res == nil {
		return problems
	}
	if res.Outputs.Len() == 0 {
		problems = append(problems, "no agent ran")
	}
	for _, e := range events {
		if e.Kind == event.AgentEnd && e.Error != "" {
			problems = append(problems, "agent "+e.Node+": "+strings.SplitN(e.Error, "\n", 2)[0])
		}
	}
	for id, msg := range res.Failed() {
		problems = append(problems, "output "+id+": "+strings.SplitN(msg, "\n", 2)[0])
	}
	return problems
}
