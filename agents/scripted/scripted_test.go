package scripted_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
)

const script = `
improver:
  - first draft
  - text: second draft
    usage: {prompt_tokens: 12, completion_tokens: 34}
  - error: model overloaded
    status: 503
    retry_after: 2s
scorer:
  cycle: ["SCORE: 0.4", "SCORE: 0.9"]
slow:
  - {text: late, delay: 10s}
quick:
  - {text: soon, delay: 5ms}
plain_error:
  - error: nope
`

func gen(t *testing.T, m agents.Model) (agents.Reply, error) {
	t.Helper()
	return m.Generate(context.Background(), agents.Request{Prompt: "p"})
}

func TestScriptOrderUsageAndExhaustion(t *testing.T) {
	s, err := scripted.Parse([]byte(script), "replies.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"improver", "plain_error", "quick", "scorer", "slow"}, s.Agents())

	m, err := s.ModelFor("improver")
	require.NoError(t, err)
	r, err := gen(t, m)
	require.NoError(t, err)
	assert.Equal(t, agents.Reply{Text: "first draft"}, r)
	r, err = gen(t, m)
	require.NoError(t, err)
	assert.Equal(t, agents.Reply{Text: "second draft", Usage: spend.Usage{PromptTokens: 12, CompletionTokens: 34}}, r)

	_, err = gen(t, m)
	require.Error(t, err)
	var ce *retry.CallError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 503, ce.Status)
	assert.Equal(t, 2*time.Second, ce.RetryAfter)
	assert.Equal(t, retry.ClassServerError, retry.Classify(err))
	assert.Contains(t, err.Error(), "model overloaded")

	_, err = gen(t, m)
	require.ErrorIs(t, err, scripted.ErrExhausted)
	assert.Contains(t, err.Error(), `agent "improver"`)
	assert.Contains(t, err.Error(), "3 in replies.yaml")
	assert.Contains(t, err.Error(), `(add replies for "improver" to replies.yaml, or write {cycle: [...]} to repeat them)`)
	assert.True(t, fault.IsFatal(err), "an exhausted script stops the run")
	assert.Equal(t, retry.ClassPermanent, retry.Classify(err))

	// The same agent's model is shared: asking again does not restart it.
	m2, err := s.ModelFor("improver")
	require.NoError(t, err)
	_, err = gen(t, m2)
	require.ErrorIs(t, err, scripted.ErrExhausted)

	s.Reset()
	r, err = gen(t, m2)
	require.NoError(t, err)
	assert.Equal(t, "first draft", r.Text)
}

func TestScriptPlainErrorIsNotRetriedByDefault(t *testing.T) {
	s, err := scripted.Parse([]byte(script), "replies.yaml")
	require.NoError(t, err)
	m, _ := s.ModelFor("plain_error")
	_, err = gen(t, m)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nope")
	assert.Equal(t, retry.ClassError, retry.Classify(err))
	assert.False(t, retry.DefaultLLM().Retries(retry.Classify(err)))
}

func TestScriptCycle(t *testing.T) {
	s, err := scripted.Parse([]byte(script), "replies.yaml")
	require.NoError(t, err)
	m, err := s.ModelFor("scorer")
	require.NoError(t, err)
	var got []string
	for range 5 {
		r, err := gen(t, m)
		require.NoError(t, err)
		got = append(got, r.Text)
	}
	assert.Equal(t, []string{"SCORE: 0.4", "SCORE: 0.9", "SCORE: 0.4", "SCORE: 0.9", "SCORE: 0.4"}, got)
}

func TestScriptUnknownAgent(t *testing.T) {
	s, err := scripted.Parse([]byte(script), "replies.yaml")
	require.NoError(t, err)
	_, err = s.ModelFor("writer")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"writer"`)
	assert.Contains(t, err.Error(), "replies.yaml")
	assert.Contains(t, err.Error(), "improver, plain_error")
	assert.Contains(t, err.Error(), "(add writer: [...] to replies.yaml)")
	assert.True(t, fault.IsFatal(err), "a script without replies for an agent stops the run")
}

func TestScriptDelay(t *testing.T) {
	s, err := scripted.Parse([]byte(script), "replies.yaml")
	require.NoError(t, err)

	q, _ := s.ModelFor("quick")
	start := time.Now()
	r, err := gen(t, q)
	require.NoError(t, err)
	assert.Equal(t, "soon", r.Text)
	assert.GreaterOrEqual(t, time.Since(start), 5*time.Millisecond)

	slow, _ := s.ModelFor("slow")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start = time.Now()
	_, err = slow.Generate(ctx, agents.Request{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)

	s.Reset()
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = slow.Generate(ctx, agents.Request{})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, retry.ClassTimeout, retry.Classify(err))

	// A cancelled context takes no reply.
	s.Reset()
	done, stop := context.WithCancel(context.Background())
	stop()
	_, err = q.Generate(done, agents.Request{})
	require.ErrorIs(t, err, context.Canceled)
	r, err = gen(t, q)
	require.NoError(t, err)
	assert.Equal(t, "soon", r.Text)
}

func TestScriptConcurrentUse(t *testing.T) {
	var src string
	src = "many:\n"
	const n = 200
	for i := range n {
		src += fmt.Sprintf("  - r%03d\n", i)
	}
	s, err := scripted.Parse([]byte(src), "many.yaml")
	require.NoError(t, err)
	m, err := s.ModelFor("many")
	require.NoError(t, err)

	var (
		mu        sync.Mutex
		got       []string
		exhausted int
		wg        sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n/8 + 5 {
				r, err := m.Generate(context.Background(), agents.Request{})
				mu.Lock()
				if errors.Is(err, scripted.ErrExhausted) {
					exhausted++
				} else if err == nil {
					got = append(got, r.Text)
				} else {
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, got, n, "every reply is given exactly once")
	sort.Strings(got)
	for i, g := range got {
		assert.Equal(t, fmt.Sprintf("r%03d", i), g)
	}
	assert.Equal(t, 8*(n/8+5)-n, exhausted)
}

func TestParseScriptProblems(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"yaml syntax", "a:\n  - x\n - y\n", []string{"bad.yaml:2:1: script: did not find expected key"}},
		{"empty", "", []string{"bad.yaml: script is empty"}},
		{"not a mapping", "- a\n- b\n", []string{"bad.yaml:1:1: script must be a mapping, not a list"}},
		{"several problems at once", `writer: hello
scorer:
  - {text: a, error: b}
  - {delay: 1s}
  - {text: x, delay: soon}
  - [nested]
  - {text: x, usage: {prompt_tokens: -1, tokens: 3}}
  - {error: ""}
  - {text: x, status: 500}
  - {tool_calls: [{args: {a: 1}}, plain, {tool: t, args: [1]}], error: e}
looper: {cycle: []}
other: {repeat: [a]}
writer2: ~
`, []string{
			`bad.yaml:1:9: script: agent "writer": replies must be a list or {cycle: [...]}, not "hello"`,
			`bad.yaml:3:15: script: agent "scorer": reply 1: a reply has text or error, not both`,
			`bad.yaml:4:5: script: agent "scorer": reply 2: a reply needs text, tool_calls or error`,
			`bad.yaml:5:15: script: agent "scorer": reply 3: delay: cannot read "soon" as a duration`,
			`bad.yaml:6:5: script: agent "scorer": reply 4 must be text, {text, delay, usage} or {error}, not a list`,
			`bad.yaml:7:23: script: agent "scorer": reply 5: usage: prompt_tokens must be between 0 and`,
			`bad.yaml:7:42: script: agent "scorer": reply 5: usage: unknown key "tokens"`,
			`bad.yaml:8:6: script: agent "scorer": reply 6: error must be a non-empty message`,
			`bad.yaml:9:15: script: agent "scorer": reply 7: status and retry_after belong to error replies`,
			`bad.yaml:10:19: script: agent "scorer": reply 8: tool call 1: a tool call needs tool: the name of the tool`,
			`bad.yaml:10:35: script: agent "scorer": reply 8: tool call 2 must be {tool, args}, not "plain"`,
			`bad.yaml:10:52: script: agent "scorer": reply 8: tool call 3: args must be a mapping (or JSON text), not a list`,
			`script: agent "scorer": reply 8: a reply has tool_calls or error, not both`,
			`bad.yaml:11:17: script: agent "looper": cycle needs at least one reply`,
			`bad.yaml:12:8: script: agent "other": a mapping of replies needs the key cycle`,
			`bad.yaml:12:9: script: agent "other": unknown key "repeat"`,
			`bad.yaml:13:10: script: agent "writer2": replies must be a list or {cycle: [...]}, not null`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scripted.Parse([]byte(tc.src), "bad.yaml")
			require.Error(t, err)
			assert.Nil(t, s)
			assert.True(t, load.IsError(err))
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// A reply may ask for tools: args as a mapping is sent as its JSON, as text
// as is (a model may send arguments that are not JSON).
func TestToolCallReplies(t *testing.T) {
	s, err := scripted.Parse([]byte(`coder:
  - tool_calls: [{tool: run_tests, args: {pkg: ./..., n: 2}}, {tool: read, id: r1, args: "{broken"}]
  - done
`), "s.yaml")
	require.NoError(t, err)
	m, err := s.ModelFor("coder")
	require.NoError(t, err)
	r, err := gen(t, m)
	require.NoError(t, err)
	assert.Empty(t, r.Text)
	assert.Equal(t, []agents.ToolCall{{Name: "run_tests", Args: `{"n":2,"pkg":"./..."}`}, {ID: "r1", Name: "read", Args: "{broken"}}, r.ToolCalls)
	r, err = gen(t, m)
	require.NoError(t, err)
	assert.Equal(t, "done", r.Text)
	assert.Empty(t, r.ToolCalls)
}

func TestReadRepliesForResponsesKey(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(`responses:
  - "yes"
  - {text: "no", usage: {prompt_tokens: 1, completion_tokens: 2}}
`), &doc))
	probs := &load.Problems{}
	c := load.NewConfig("wf.yaml", &doc, "agent \"judge\"", probs)
	replies, cycle := scripted.ReadReplies(c.File(), c.Node("responses"), "agent \"judge\": responses", probs)
	require.NoError(t, probs.Err())
	assert.False(t, cycle)
	require.Len(t, replies, 2)
	assert.Equal(t, load.Pos{File: "wf.yaml", Line: 2, Col: 5}, replies[0].Pos)

	m := scripted.New("judge", "its responses", replies, cycle)
	r, err := gen(t, m)
	require.NoError(t, err)
	assert.Equal(t, "yes", r.Text)
	r, err = gen(t, m)
	require.NoError(t, err)
	assert.Equal(t, spend.Usage{PromptTokens: 1, CompletionTokens: 2}, r.Usage)
	_, err = gen(t, m)
	require.ErrorIs(t, err, scripted.ErrExhausted)
	assert.Contains(t, err.Error(), `agent "judge"`)
	assert.Contains(t, err.Error(), "2 in its responses")
	assert.Equal(t, 2, m.Calls())
}
