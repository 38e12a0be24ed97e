package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/llm"
)

// lookupTool is a tool that answers "<query> is known"; it records the
// queries it was asked.
type lookupTool struct {
	mu      sync.Mutex
	queries []string
}

func (l *lookupTool) tool() *agents.Tool {
	return &agents.Tool{
		Spec: agents.ToolSpec{Name: "lookup", Description: "Look a word up.", Parameters: queryParams()},
		Type: "test",
		Agent: agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
			q, _ := in.Vars["args"].(map[string]any)["query"].(string)
			l.mu.Lock()
			l.queries = append(l.queries, q)
			l.mu.Unlock()
			return agents.Output{Response: q + " is known"}, nil
		}),
		Check: func(args string) (map[string]any, error) {
			var m map[string]any
			if err := json.Unmarshal([]byte(args), &m); err != nil {
				return nil, fmt.Errorf("the arguments are not JSON: %w", err)
			}
			if _, ok := m["query"].(string); !ok {
				return nil, fmt.Errorf("missing property 'query'")
			}
			return m, nil
		},
	}
}

func (l *lookupTool) asked() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.queries...)
	return out
}

func buildWithTools(t *testing.T, o llm.Options, src string, tools ...*agents.Tool) agents.Agent {
	t.Helper()
	reg := agents.NewRegistry()
	llm.RegisterWith(reg, o)
	w := &agenttest.Workspace{Tools: map[string]*agents.Tool{}, Problems: &load.Problems{}}
	for _, tl := range tools {
		w.Tools[tl.Spec.Name] = tl
	}
	a, probs := agenttest.Build(t, reg, src, w)
	require.NoError(t, probs.Err())
	require.NoError(t, w.Problems.Err())
	return a
}

// openAIToolCalls answers in the chat-completions wire format with tool calls.
func openAIToolCalls(w http.ResponseWriter, calls ...[3]string) {
	tcs := make([]map[string]any, len(calls))
	for i, c := range calls {
		tcs[i] = map[string]any{"id": c[0], "type": "function", "function": map[string]any{"name": c[1], "arguments": c[2]}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}}},
		"usage": map[string]any{"prompt_tokens": 20, "completion_tokens": 4, "total_tokens": 24},
	})
}

// messagesOf returns the request's messages.
func messagesOf(t *testing.T, r request) []map[string]any {
	t.Helper()
	raw, ok := r.Body["messages"].([]any)
	require.True(t, ok, "messages in %s", r.Raw)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i] = m.(map[string]any)
	}
	return out
}

// The OpenAI protocol, spoken by OpenAI, Gemini's compatible endpoint, and
// (for tool rounds) Ollama's /v1: a round with two parallel calls, one of them
// with arguments that are not JSON, goes back as one assistant message and
// two tool messages; the second reply is the answer.
func TestToolRoundsOverTheOpenAIProtocol(t *testing.T) {
	cases := []struct{ name, agent, path string }{
		{"openai", "type: openai-answer\nmodel: gpt-test\nmodel_url: %s\n", "/v1/chat/completions"},
		{"googleai", "type: llm\nprovider: googleai\nmodel: gemini-test\nmodel_url: %s/v1beta/openai\n", "/v1beta/openai/chat/completions"},
		{"ollama", "type: local_llm\nprovider: ollama\nmodel: llama3\nmodel_url: %s/api/generate\n", "/v1/chat/completions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
				if n == 1 {
					openAIToolCalls(w, [3]string{"call_a", "lookup", `{"query":"apple"}`}, [3]string{"call_b", "lookup", `{"query": bad`})
					return
				}
				agenttest.WriteChatReply(w, "Apples are known.", 30, 5)
			})
			lt := &lookupTool{}
			rec := &recorder{}
			a := buildWithTools(t, llm.Options{Getenv: env("OPENAI_API_KEY", "test-key-1", "GOOGLE_API_KEY", "test-key-2")},
				"id: x\n"+fmt.Sprintf(tc.agent, srv.URL)+"prompt: What is an apple?\ntools: [lookup]\ntool_choice: required\n", lt.tool())
			out, err := a.Run(context.Background(), input(rec))
			require.NoError(t, err)
			assert.Equal(t, "Apples are known.", out.Response)
			assert.Equal(t, []string{"apple"}, lt.asked(), "the call with bad arguments never reaches the tool")
			assert.Equal(t, spend.Usage{PromptTokens: 50, CompletionTokens: 9}, out.Usage, "both rounds count")

			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			for _, r := range reqs {
				assert.Equal(t, tc.path, r.Path)
			}
			tools := reqs[0].Body["tools"].([]any)
			require.Len(t, tools, 1)
			fn := tools[0].(map[string]any)["function"].(map[string]any)
			assert.Equal(t, "lookup", fn["name"])
			assert.Equal(t, "Look a word up.", fn["description"])
			assert.Equal(t, "object", fn["parameters"].(map[string]any)["type"])
			assert.Equal(t, "required", reqs[0].Body["tool_choice"])
			assert.NotEqual(t, "required", reqs[1].Body["tool_choice"], "tool_choice applies to the first round")

			msgs := messagesOf(t, reqs[1])
			require.Len(t, msgs, 4, reqs[1].Raw)
			assert.Equal(t, "assistant", msgs[1]["role"])
			calls := msgs[1]["tool_calls"].([]any)
			require.Len(t, calls, 2)
			assert.Equal(t, "call_a", calls[0].(map[string]any)["id"])
			assert.Equal(t, `{"query": bad`, calls[1].(map[string]any)["function"].(map[string]any)["arguments"])
			assert.Equal(t, "tool", msgs[2]["role"])
			assert.Equal(t, "call_a", msgs[2]["tool_call_id"])
			assert.Equal(t, "apple is known", msgs[2]["content"])
			assert.Equal(t, "call_b", msgs[3]["tool_call_id"])
			assert.Contains(t, msgs[3]["content"], "error: the arguments are not JSON")

			list := out.Fields["tool_calls"].([]any)
			require.Len(t, list, 2)
			first := list[0].(map[string]any)
			assert.Equal(t, 1, first["round"])
			assert.Equal(t, "lookup", first["tool"])
			assert.Equal(t, "apple is known", first["result"])
			assert.Nil(t, first["error"])
			assert.Contains(t, list[1].(map[string]any)["error"], "not JSON")

			var kinds []string
			for _, e := range rec.Events() {
				if e.Kind == event.ToolCall || e.Kind == event.ToolResult {
					kinds = append(kinds, e.Kind)
					assert.Equal(t, 1, e.Data["round"])
					assert.Equal(t, "lookup", e.Data["tool"])
				}
			}
			assert.Len(t, kinds, 4)
		})
	}
}

// Anthropic's Messages API: tool_use blocks (with text beside them) come
// back as calls; the next request carries them as tool_use turns and the
// results as tool_result blocks answering their ids.
func TestToolRoundsOverTheAnthropicProtocol(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if n == 1 {
			fmt.Fprint(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use",
"content":[{"type":"text","text":"Let me look."},
 {"type":"tool_use","id":"toolu_1","name":"lookup","input":{"query":"pear"}},
 {"type":"tool_use","id":"toolu_2","name":"lookup","input":{"word":"plum"}}],
"usage":{"input_tokens":12,"output_tokens":6}}`)
			return
		}
		fmt.Fprint(w, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-test","stop_reason":"end_turn",
"content":[{"type":"text","text":"Pears are known."}],"usage":{"input_tokens":40,"output_tokens":4}}`)
	})
	lt := &lookupTool{}
	a := buildWithTools(t, llm.Options{Getenv: env("ANTHROPIC_API_KEY", "test-key-3")},
		"id: x\ntype: llm\nprovider: anthropic\nmodel: claude-test\nmodel_url: "+srv.URL+"/v1\nprompt: What is a pear?\ntools: [lookup]\n", lt.tool())
	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, "Pears are known.", out.Response)
	assert.Equal(t, []string{"pear"}, lt.asked())
	assert.Equal(t, spend.Usage{PromptTokens: 52, CompletionTokens: 10}, out.Usage, "a round's usage counts once, not once per block")

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	tools := reqs[0].Body["tools"].([]any)
	require.Len(t, tools, 1)
	assert.Equal(t, "lookup", tools[0].(map[string]any)["name"])
	assert.Equal(t, "object", tools[0].(map[string]any)["input_schema"].(map[string]any)["type"])

	raw := reqs[1].Raw
	msgs := messagesOf(t, reqs[1])
	var uses, results []map[string]any
	for _, m := range msgs {
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			bm := b.(map[string]any)
			switch bm["type"] {
			case "tool_use":
				assert.Equal(t, "assistant", m["role"])
				uses = append(uses, bm)
			case "tool_result":
				assert.Equal(t, "user", m["role"])
				results = append(results, bm)
			}
		}
	}
	require.Len(t, uses, 2, raw)
	require.Len(t, results, 2, raw)
	assert.Equal(t, "toolu_1", uses[0]["id"])
	assert.Equal(t, map[string]any{"query": "pear"}, uses[0]["input"])
	assert.Equal(t, "toolu_1", results[0]["tool_use_id"])
	assert.Equal(t, "pear is known", results[0]["content"])
	assert.Equal(t, "toolu_2", results[1]["tool_use_id"])
	assert.Contains(t, results[1]["content"], "error: missing property 'query'")
	assert.Contains(t, raw, "Let me look.", "the text beside the calls goes back too")
}

// A model that keeps asking for tools fails after max_tool_rounds rounds,
// naming the agent, the rounds and the last tool; a call to a tool that is
// not offered is a tool error the model sees.
func TestToolRoundsAreBounded(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		openAIToolCalls(w, [3]string{fmt.Sprintf("c%d", n), "lookup", `{"query":"again"}`}, [3]string{fmt.Sprintf("d%d", n), "delete_all", `{}`})
	})
	lt := &lookupTool{}
	a := buildWithTools(t, llm.Options{Getenv: env("OPENAI_API_KEY", "test-key-1")},
		"id: looper\ntype: openai-answer\nmodel: m\nmodel_url: "+srv.URL+"\nprompt: go\ntools: [lookup]\nmax_tool_rounds: 2\n", lt.tool())
	_, err := a.Run(context.Background(), input(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `agent "looper"`)
	assert.Contains(t, err.Error(), "after 2 rounds")
	assert.Contains(t, err.Error(), `"delete_all"`)
	assert.Len(t, srv.Requests(), 3, "two rounds of tools, then the reply that still asks")
	assert.Len(t, lt.asked(), 2)
	last := messagesOf(t, srv.Requests()[2])
	assert.Contains(t, last[len(last)-1]["content"], `there is no tool "delete_all"`)
}

// A tool's result is cut at the calling agent's max_reply_bytes, with a note
// and a tool_result_cut warning naming the key, and scrubbed of the run's
// secrets before the model (or the output) sees it.
func TestToolResultsAreCappedAndScrubbed(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if n == 1 {
			openAIToolCalls(w, [3]string{"c1", "dump", `{"query":"all of sk-live-123"}`})
			return
		}
		agenttest.WriteChatReply(w, "ok", 1, 1)
	})
	big := &agents.Tool{
		Spec: agents.ToolSpec{Name: "dump", Description: "d", Parameters: queryParams()},
		Agent: agents.Func(func(context.Context, agents.Input) (agents.Output, error) {
			return agents.Output{Response: "key sk-live-123 " + strings.Repeat("x", 10000)}, nil
		}),
		Check: func(string) (map[string]any, error) { return map[string]any{}, nil },
	}
	a := buildWithTools(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk-live-123")},
		"id: x\ntype: openai-answer\nmodel: m\nmodel_url: "+srv.URL+"\nprompt: go\ntools: [dump]\nmax_reply_bytes: 4096\n", big)
	rec := &recorder{}
	out, err := a.Run(context.Background(), input(rec))
	require.NoError(t, err)
	call := out.Fields["tool_calls"].([]any)[0].(map[string]any)
	assert.Equal(t, `{"query":"all of [REDACTED:OPENAI_API_KEY]"}`, call["args"], "arguments are scrubbed too")
	for _, e := range rec.Events() {
		if e.Kind == event.ToolCall || e.Kind == event.ToolResult {
			assert.False(t, strings.Contains(fmt.Sprint(e.Data)+e.Response, "sk-live-123"), "tool events carry no secret")
		}
	}
	res := call["result"].(string)
	assert.NotContains(t, res, "sk-live-123")
	assert.Contains(t, res, `[cut: the result of tool "dump" was 10030 bytes, over max_reply_bytes (4 KiB = 4096 bytes) of agent "x"`)
	assert.LessOrEqual(t, len(res), 4096+300)
	var warned []string
	for _, e := range rec.Events() {
		if e.Kind == event.Warning && e.Data["code"] == "tool_result_cut" {
			warned = append(warned, e.Message)
		}
	}
	require.Len(t, warned, 1, "one warning for the cut result")
	assert.Contains(t, warned[0], "raise max_reply_bytes")
	assert.NotContains(t, srv.Requests()[1].Raw, "sk-live-123")
}

// toolModel asks for the lookup tool in its first reply, then answers; each
// reply reports usage.
type toolModel struct {
	mu   sync.Mutex
	reqs []agents.Request
}

func (m *toolModel) Generate(_ context.Context, req agents.Request) (agents.Reply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	u := spend.Usage{PromptTokens: 10, CompletionTokens: 5}
	if len(m.reqs)%2 == 1 {
		return agents.Reply{Usage: u, ToolCalls: []agents.ToolCall{{Name: "lookup", Args: `{"query":"fig"}`}}}, nil
	}
	return agents.Reply{Text: "figs are known", Usage: u}, nil
}

// Every round of a call is counted in the budget and reserved before it is
// made (its worst case grows with the round's messages); a round that does
// not fit is refused.
func TestBudgetCountsEveryToolRound(t *testing.T) {
	model := &toolModel{}
	lt := &lookupTool{}
	a := buildWithTools(t, llm.Options{Getenv: env()},
		"id: w\ntype: openai-answer\nmodel: gpt-test\nmax_tokens: 20\nprompt: Tell me about figs\ntools: [lookup]\n", lt.tool())
	in := input(&recorder{})
	in.Run.Models = oneModel{model}
	budget := spend.NewBudget(spend.Limit{MaxTokens: 1000, Name: "workflow"}, nil)
	in.Budget = budget
	out, err := a.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, spend.Usage{PromptTokens: 20, CompletionTokens: 10}, out.Usage)
	assert.Equal(t, 30, budget.Spent().Total(), "both rounds are counted")

	first := model.reqs[0].WorstCase()
	second := model.reqs[1].WorstCase()
	assert.Greater(t, second.PromptTokens, first.PromptTokens, "the second round's reservation covers its tool messages")

	// room for the first round's reservation but not the second's: refused
	tight := spend.NewBudget(spend.Limit{MaxTokens: 15 + first.Total(), Name: "workflow"}, nil)
	in.Budget = tight
	_, err = a.Run(context.Background(), in)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded)
	assert.Len(t, model.reqs, 3, "the second round was not made")
}

func queryParams() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}, "required": []any{"query"}}
}

// An MCP tool's name (server.tool) goes to a provider as server__tool, which
// its function-name rules accept, and the model's call by that name reaches
// the tool.
func TestDottedToolNamesOnTheWire(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if n == 1 {
			openAIToolCalls(w, [3]string{"call_a", "fs__lookup", `{"query":"apple"}`})
			return
		}
		agenttest.WriteChatReply(w, "done", 3, 1)
	})
	lt := &lookupTool{}
	tool := lt.tool()
	tool.Spec.Name = "fs.lookup"
	a := buildWithTools(t, llm.Options{Getenv: env("OPENAI_API_KEY", "test-key-1")},
		"id: x\ntype: openai-answer\nmodel: m\nmodel_url: "+srv.URL+"\nprompt: p\ntools: [fs.lookup]\ntool_choice: fs.lookup\n", tool)
	out, err := a.Run(context.Background(), input(&recorder{}))
	require.NoError(t, err)
	assert.Equal(t, "done", out.Response)
	assert.Equal(t, []string{"apple"}, lt.asked())
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	fn := reqs[0].Body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	assert.Equal(t, "fs__lookup", fn["name"])
	assert.Equal(t, "fs__lookup", reqs[0].Body["tool_choice"].(map[string]any)["function"].(map[string]any)["name"])
	msgs := messagesOf(t, reqs[1])
	assert.Equal(t, "fs__lookup", msgs[1]["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["name"])
	assert.Equal(t, "fs.lookup", out.Fields["tool_calls"].([]any)[0].(map[string]any)["tool"])
}
