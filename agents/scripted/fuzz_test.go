package scripted_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/scripted"
)

// FuzzScript feeds arbitrary bytes to the scripted-reply parser. It never
// panics; an error names the file; a parsed script answers its first call
// of every agent or fails with an error.
func FuzzScript(f *testing.F) {
	seeds, _ := filepath.Glob("../../examples/*/replies.yaml")
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", "a: [hi]\n", "a: {cycle: [x, {text: y, delay: 1ms}]}\n", "a: [{error: boom, status: 429, retry_after: 1s}]\n",
		"a: [{text: t, usage: {prompt_tokens: -1, completion_tokens: 1e99}}]\n", "a: [{delay: 1e300s}]\n",
		"a: &x [*x]\n", "- 1\n", "a: {cycle: []}\n", "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scripted.Parse(data, "fuzz.yaml")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("a script error must name the file: %v", err)
			}
			return
		}
		if s == nil {
			t.Fatal("no error and no script")
		}
		// A call must not wait on a scripted delay: the context is canceled.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, id := range []string{"a", "improver", "scorer"} {
			m, err := s.ModelFor(id)
			if err != nil {
				continue
			}
			_, _ = m.Generate(ctx, agents.Request{Prompt: "p"})
		}
	})
}
