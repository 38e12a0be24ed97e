package orchestrator

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/scripted"
)

// maxLoadHeap is the most a workflow of any size within DefaultLimits may
// allocate while it is read and refused (or built).
const maxLoadHeap = 64 << 20

// fill repeats unit after head until the text is just under n bytes.
func fill(head, unit, tail string, n int) string {
	k := (n - len(head) - len(tail)) / len(unit)
	return head + strings.Repeat(unit, k) + tail
}

// allocated runs fn and returns the bytes it allocated (all of them, freed or
// not: an upper bound of the heap it needed).
func allocated(fn func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestOversizedYAMLIsRefusedBeforeTheTreeIsBuilt(t *testing.T) {
	const size = 4<<20 - 1
	head := "orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a, type: echo}\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"flat block list", fill("", "- a\n", "", size), "wf.yaml:100001:1: workflow has more than 100,000 YAML nodes by line 100001 (a 4.0 MiB input); split it into smaller files"},
		{"flat flow list", fill("x: [", "a,", "a]\n", size), "wf.yaml:1:1: workflow has more than 100,000 YAML nodes by line 1"},
		{"flat mapping", fill(head, "k: v\n", "", size), "workflow has more than 100,000 YAML nodes"},
		{"list of mappings", fill(head+"z:\n", "- {a: 1}\n", "", size), "workflow has more than 100,000 YAML nodes"},
		{"deep nesting", fill("x: ", "[", "", size), "workflow has more than 100,000 YAML nodes"},
		{"one huge prompt", fill(head+"p: |\n", "  - not: [a, list]\n", "", size), `unknown key "p"`},
		{"alias bomb", aliasBomb(), "alias bomb"},
		{"just under the node limit", fill(head+"z:\n", "- a\n", "", 99_000*4), `unknown key "z"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.LessOrEqual(t, len(tc.src), 4<<20)
			var err error
			data, reg := []byte(tc.src), agenttest.Registry()
			n := allocated(func() { _, _, err = Parse(data, "wf.yaml", reg) })
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.LessOrEqual(t, n, uint64(maxLoadHeap), "allocated %d MiB", n>>20)
			t.Logf("%s: %d KiB allocated", tc.name, n>>10)
		})
	}
}

func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	return b.String()
}

func TestScriptNodeBound(t *testing.T) {
	src := fill("a:\n", "  - r\n", "", 4<<20-1)
	var err error
	data := []byte(src)
	n := allocated(func() { _, err = scripted.Parse(data, "s.yaml") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s.yaml:100000:1: script has more than 100,000 YAML nodes")
	assert.LessOrEqual(t, n, uint64(maxLoadHeap))
}
