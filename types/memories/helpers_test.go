package memories_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/storetest"
	"github.com/cogloop/cogloop/types/llm"
	"github.com/cogloop/cogloop/types/memories"
)

// env builds a store and a registry on one fake clock.
type env struct {
	clock *storetest.Clock
	store *memory.InMemory
	reg   *agents.Registry
}

func newEnv(t *testing.T, o memories.Options) *env {
	t.Helper()
	e := &env{clock: storetest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))}
	store, err := memory.NewInMemory(memory.Options{Now: e.clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	e.store = store
	o.Now = e.clock.Now
	e.reg = agents.NewRegistry()
	llm.Register(e.reg)
	loopnode.Register(e.reg)
	memories.RegisterWith(e.reg, o)
	return e
}

// load parses src with the env's registry and requires no warnings.
func (e *env) load(t *testing.T, src string) *cogloop.Workflow {
	t.Helper()
	wf, err := cogloop.Parse([]byte(src), "wf.yaml", cogloop.WithRegistry(e.reg))
	require.NoError(t, err)
	require.Empty(t, wf.Warnings)
	return wf
}

// run runs wf on input against the env's store and requires no failed agent.
func (e *env) run(t *testing.T, wf *cogloop.Workflow, input any) *cogloop.Result {
	t.Helper()
	res, err := wf.Run(context.Background(), input, cogloop.WithMemory(e.store))
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	return res
}

func (e *env) remember(t *testing.T, ns string, m memory.Memory) {
	t.Helper()
	require.NoError(t, e.store.Remember(context.Background(), ns, m))
}

// output returns the output of id in res.
// memoriesOf returns a reader output's memories field.
func memoriesOf(t *testing.T, out agents.Output) []map[string]any {
	t.Helper()
	list, ok := out.Fields["memories"].([]any)
	require.True(t, ok, "memories is %T", out.Fields["memories"])
	ms := make([]map[string]any, len(list))
	for i, m := range list {
		ms[i] = m.(map[string]any)
	}
	return ms
}

func contents(ms []map[string]any) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m["content"].(string)
	}
	return out
}

// uniqueNS names a namespace no other test (or -count run) uses, for tests on
// the process-wide default store.
func uniqueNS(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "-" + hex.EncodeToString(b[:])
}

// loadErr parses src with the default registry and returns the load error.
func loadErr(t *testing.T, src string) error {
	t.Helper()
	_, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.Error(t, err)
	require.True(t, load.IsError(err), "%v", err)
	return err
}

// warnings parses src with the default registry and returns its warnings.
func warnings(t *testing.T, src string) []string {
	t.Helper()
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	out := make([]string, len(wf.Warnings))
	for i, w := range wf.Warnings {
		out[i] = w.Error()
	}
	return out
}
