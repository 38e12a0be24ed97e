package cogloop_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestWrappedAgentsKeepTheirAbilities: every agent of the OrKa corpus and the
// type goldens, with timeout: and retry: added to its definition (so routers,
// forks, path executors, joins and loops run behind the builder's wrappers),
// gives the same transcript as without them (issue 28 B1: a router behind
// timeout: never ran its route, a fork hid its branch outputs). The retry
// policy retries only HTTP 429, which no scripted reply is, so no step runs
// twice.
func TestWrappedAgentsKeepTheirAbilities(t *testing.T) {
	var cases [][3]string // name, workflow, replies
	corpus, err := filepath.Glob(filepath.Join("testdata", "orka", "*.yml"))
	require.NoError(t, err)
	for _, p := range corpus {
		base := strings.TrimSuffix(p, ".yml")
		cases = append(cases, [3]string{filepath.Base(base), p, base + ".replies.yaml"})
	}
	types, err := filepath.Glob(filepath.Join("testdata", "types", "*"))
	require.NoError(t, err)
	for _, dir := range types {
		cases = append(cases, [3]string{"types/" + filepath.Base(dir), filepath.Join(dir, "workflow.yaml"), filepath.Join(dir, "replies.yaml")})
	}
	require.Greater(t, len(cases), 20)
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c[0], func(t *testing.T) {
			input := "What is the capital of France?"
			for _, in := range []string{strings.TrimSuffix(c[1], ".yml") + ".input.txt", filepath.Join(filepath.Dir(c[1]), "input.txt")} {
				if data, err := os.ReadFile(in); err == nil {
					input = strings.TrimSpace(string(data))
				}
			}
			wrapped := filepath.Join(t.TempDir(), filepath.Base(c[1]))
			for _, typ := range wrapEveryAgent(t, c[1], wrapped) {
				seen[typ] = true
			}
			original := c[1]
			if raceDetector {
				original = filepath.Join(t.TempDir(), filepath.Base(c[1]))
				rewrite(t, c[1], original, raceRegexBudget)
			}
			wf, res, events, runErr := offline(t, original, c[2], input)
			require.NotNil(t, wf, "load: %v", runErr)
			want := transcript(t, wf, res, events, runErr)
			wf, res, events, runErr = offline(t, wrapped, c[2], input)
			require.NotNil(t, wf, "load wrapped: %v", runErr)
			got := transcript(t, wf, res, events, runErr)
			assert.Equal(t, blocks(maskPositions(want, original)), blocks(maskPositions(got, wrapped)))
		})
	}
	for _, typ := range []string{"router", "fork", "join", "path_executor", "loop", "failover"} {
		assert.True(t, seen[typ], "some workflow wraps a %s", typ)
	}
}

// blocks splits a transcript into its sections, sorted: the agents of a
// fork's branches run at once, so their events come in any order (the
// outputs section keeps the declaration order).
func blocks(s string) []string {
	b := strings.Split("\n"+s, "\n== ") // the first section is split off like the others
	sort.Strings(b)
	return b
}

var (
	positions = regexp.MustCompile(`:\d+:\d+`)
	memoryIDs = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	// a pass's duration where a prompt prints a loop's output as Python does
	reprDurations = regexp.MustCompile(`'duration_ms': [0-9.e+-]+`)
)

// maskPositions hides the file and line:col of load messages (the wrapped
// file is written elsewhere and its lines move) and the ids of stored
// memories (a hash that covers the file), and the pass durations that a
// prompt printing a loop's whole output shows. (Regex warnings are not
// masked: match timeouts are judged in CPU time, and under -race the loops
// get a larger regex budget, see raceRegexBudget.)
func maskPositions(s, file string) string {
	s = memoryIDs.ReplaceAllString(s, "<memory id>")
	s = reprDurations.ReplaceAllString(s, "'duration_ms': <ms>")
	return positions.ReplaceAllString(strings.ReplaceAll(s, file, "<file>"), ":<pos>")
}

// wrapEveryAgent writes to dst the workflow at src with timeout: and retry:
// on every agent definition that has neither (timeout: also not in params:,
// where an LLM agent reads it too), at any depth, and returns the
// types it wrapped.
func wrapEveryAgent(t *testing.T, src, dst string) []string {
	t.Helper()
	var types []string
	rewrite(t, src, dst, func(n *yaml.Node) {
		types = append(types, mapValue(n, "type").Value)
		raceRegexBudget(n)
		if mapValue(n, "timeout") == nil && (mapValue(n, "params") == nil || mapValue(mapValue(n, "params"), "timeout") == nil) {
			n.Content = append(n.Content, scalar("timeout"), scalar("3600"))
		}
		if mapValue(n, "retry") == nil {
			var r yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte("{type: fixed, count: 1, interval: 1ms, on: [429]}"), &r))
			n.Content = append(n.Content, scalar("retry"), r.Content[0])
		}
	})
	return types
}

// rewrite writes to dst the workflow at src with fn applied to every agent
// definition, at any depth.
func rewrite(t *testing.T, src, dst string, fn func(agent *yaml.Node)) {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &doc))
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode && mapValue(n, "id") != nil && mapValue(n, "type") != nil {
			fn(n)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	out, err := yaml.Marshal(&doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, out, 0o600))
}

// raceRegexBudget gives, under -race only, a loop without one a regex
// budget of an hour: the race detector multiplies the CPU time of regex
// work, so a pass near the 500ms default crosses it in one run and not in
// the other, and loses a lesson there. Without -race the default stands.
func raceRegexBudget(agent *yaml.Node) {
	if raceDetector && mapValue(agent, "type").Value == "loop" && mapValue(agent, "regex_budget") == nil {
		agent.Content = append(agent.Content, scalar("regex_budget"), scalar("1h"))
	}
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }
