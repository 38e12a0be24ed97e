package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
)

// The workloads: YAML workflows generated with the knobs each scenario turns,
// and the scripted model that answers them.

// task is the input of every run.
const task = "Explain recursion to a first-year student"

// scorePattern is the loops' score extraction pattern; the scorer's 0.62 never
// reaches the 0.99 threshold, so every loop runs its max_loops.
const scorePattern = `SCORE:\s*([0-9.]+)`

// replies are the models' answers, by agent id: the improver's draft, the
// critic's review (lines the lesson patterns match) and the scorer's verdict.
// The loopback OpenAI-compatible server answers with the same texts.
var replies = map[string]string{
	"improver": "Recursion is a way of solving a problem by solving smaller copies of the same problem. " +
		"A recursive function calls itself on a smaller input until it reaches a base case it can answer directly.\n" +
		"This shows how a big problem splits into small ones: factorial(5) is 5 × factorial(4), and so on down to factorial(1) = 1.\n" +
		"The key insight: every call must move toward the base case, or the function never stops.\n" +
		"In short, recursion trades a loop for a function that trusts itself on smaller inputs.",
	"critic": "The answer identifies the base case clearly and shows the factorial example step by step.\n" +
		"It lacks a picture of the call stack growing and shrinking.\n" +
		"It needs a second example that is not arithmetic, such as walking a folder tree.\n" +
		"It overlooked the cost of deep call stacks and the risk of a stack overflow.\n" +
		"Weakness: no mention of when a loop is the better tool.",
	"scorer": "Clear and correct, but the stack and a non-numeric example are missing.\nSCORE: 0.62",
	// The eino comparison's agents.
	"answer": "Recursion solves a problem through smaller copies of itself until a base case. SCORE: 0.62",
	"a":      "From the teacher's side: start from the base case, then the step. SCORE: 0.62",
	"b":      "From the student's side: trace factorial(3) by hand before the general rule.",
}

// replyFor is the reply for a prompt that starts with "ROLE: <agent id>" (what
// the loopback server sees), or for an agent id.
func replyFor(agent string) string {
	if r, ok := replies[agent]; ok {
		return r
	}
	if strings.HasPrefix(agent, "branch_") {
		return "Branch view of recursion: " + agent + "."
	}
	return "I have nothing to add."
}

// models answers every agent of a run from the scripted model (scripted.Model,
// what --script uses) with its reply after delay.
type models struct {
	byID map[string]agents.Model
}

func newModels(delay time.Duration) *models {
	m := &models{byID: map[string]agents.Model{}}
	ids := []string{"improver", "critic", "scorer", "answer", "a", "b"}
	for i := range 8 {
		ids = append(ids, "branch_"+strconv.Itoa(i))
	}
	for i := range 100 { // chainWorkflow's and historyChainLoop's agents
		ids = append(ids, "a"+strconv.Itoa(i))
	}
	for _, id := range ids {
		m.byID[id] = scripted.New(id, "bench", []scripted.Reply{{
			Text: replyFor(id), Delay: delay,
			Usage: spend.Usage{PromptTokens: 300, CompletionTokens: 80},
		}}, true)
	}
	return m
}

func (m *models) ModelFor(id string) (agents.Model, error) {
	if mod, ok := m.byID[id]; ok {
		return mod, nil
	}
	return nil, fmt.Errorf("bench: no model for agent %q", id)
}

// barrier parks every run at the same point so that memory can be measured
// with all of them in flight: each run's call number at (1-based) waits until
// all n runs have arrived there and release is closed.
type barrier struct {
	n, at   int
	arrived atomic.Int64
	all     chan struct{} // closed when the n-th run arrives
	release chan struct{} // closed by the sampler
}

func newBarrier(n, at int) *barrier {
	return &barrier{n: n, at: at, all: make(chan struct{}), release: make(chan struct{})}
}

// runModels is one run's view of the shared models, counting its calls.
type runModels struct {
	shared *models
	b      *barrier
	calls  atomic.Int64
}

func (r *runModels) ModelFor(id string) (agents.Model, error) {
	m, err := r.shared.ModelFor(id)
	if err != nil {
		return nil, err
	}
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		if r.calls.Add(1) == int64(r.b.at) {
			if r.b.arrived.Add(1) == int64(r.b.n) {
				close(r.b.all)
			}
			select {
			case <-r.b.release:
			case <-ctx.Done():
				return agents.Reply{}, ctx.Err()
			}
		}
		return m.Generate(ctx, req)
	}), nil
}

// modelSpec says how an LLM agent reaches its model.
type modelSpec struct {
	// url is an OpenAI-compatible server's base URL; empty means the run's
	// models (cogloop.WithModels) answer.
	url string
	// delay is the server's reply delay (sent as the model name).
	delay time.Duration
	// name, when set, is the model name instead (realModel's latencies).
	name string
}

func (s modelSpec) agentKeys() string {
	if s.url == "" {
		return "type: openai-answer\n  model: bench\n"
	}
	model := "bench-" + s.delay.String()
	if s.name != "" {
		model = s.name
	}
	return fmt.Sprintf("type: local_llm\n  provider: openai_compatible\n  model: %q\n  model_url: %s\n", model, s.url)
}

// Realistic prompts: the task, the loop's history, rules, the earlier agents'
// answers. Each starts with its role so that the loopback server knows whom it
// answers.
const (
	improverPrompt = `ROLE: improver
You are improving an answer over several passes.
TASK: {{ get_input() }}
Pass: {{ get_loop_number() }}
{% if has_past_loops() %}What earlier passes learned:
{% for p in get_past_loops() %}- pass {{ p.loop_number }} scored {{ p.score }}
  insights: {{ p.insights | truncate(200) }}
  to improve: {{ p.improvements | truncate(200) }}
  mistakes: {{ p.mistakes | truncate(200) }}
{% endfor %}{% endif %}
Rules:
1. Keep what worked and fix what the critic found.
2. Stay under 200 words, in plain language a student understands.
3. Give one worked example.
4. End with one sentence that sums the idea up.
Write the improved answer now.`
	criticPrompt = `ROLE: critic
You review a teaching answer for a first-year student.
TASK: {{ get_input() }}
ANSWER (pass {{ get_loop_number() }}):
{{ previous_outputs.improver.response }}
Review it line by line:
- what it shows or identifies well,
- what it lacks or needs,
- what it overlooked or fails to cover.
Start each finding on its own line. Be specific and brief.`
	scorerPrompt = `ROLE: scorer
Score the answer to "{{ get_input() }}" from 0 to 1.
ANSWER:
{{ previous_outputs.improver.response | truncate(1500) }}
REVIEW:
{{ previous_outputs.critic.response | truncate(1500) }}
Weigh correctness, clarity and completeness equally.
Reply with one sentence of justification, then SCORE: X.XX on its own line.`
)

// lessonPatterns are the cognitive extraction patterns (OrKa's defaults' shape).
const lessonPatterns = `    cognitive_extraction:
      enabled: true
      extract_patterns:
        insights: ["(?:provides?|identifies?|shows?|reveals?)\\s+(.+?)(?:\\n|$)", "(?:key|main|important)\\s+(?:insight|finding|point)s?[:\\s]+(.+?)(?:\\n|$)"]
        improvements: ["(?:lacks?|needs?|requires?|missing|should)\\s+(.+?)(?:\\n|$)", "(?:could|would)\\s+(?:improve|benefit|enhance)\\s+(.+?)(?:\\n|$)"]
        mistakes: ["(?:overlooked|missed|not adequately|fails? to)\\s+(.+?)(?:\\n|$)", "(?:weakness|gap|issue|problem)s?[:\\s]+(.+?)(?:\\n|$)"]
`

// agentDef renders one LLM agent, indented by indent spaces.
func agentDef(id, prompt string, m modelSpec, indent int) string {
	var b strings.Builder
	b.WriteString("- id: " + id + "\n  " + m.agentKeys() + "  prompt: |\n")
	for line := range strings.SplitSeq(prompt, "\n") {
		b.WriteString("    " + line + "\n")
	}
	return indentLines(b.String(), indent)
}

func indentLines(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(pad + line + "\n")
	}
	return b.String()
}

// threeAgents are the improver, critic and scorer definitions.
func threeAgents(m modelSpec, indent int) string {
	return agentDef("improver", improverPrompt, m, indent) +
		agentDef("critic", criticPrompt, m, indent) +
		agentDef("scorer", scorerPrompt, m, indent)
}

// sequentialWorkflow runs the three agents once, in order: three agent steps.
func sequentialWorkflow(m modelSpec) []byte {
	return []byte("orchestrator: {id: steps, strategy: sequential, agents: [improver, critic, scorer]}\nagents:\n" + threeAgents(m, 2))
}

// chainWorkflow runs n agents in order, each improving the previous one's
// response: one pass whose cost, as a function of n, issue 18 asks to be linear.
func chainWorkflow(n int) []byte {
	var b strings.Builder
	b.WriteString("orchestrator: {id: chain, strategy: sequential, agents: [")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "a%d", i)
	}
	b.WriteString("]}\nagents:\n")
	for i := range n {
		prompt := "Improve the answer to: {{ input }}"
		if i > 0 {
			prompt = fmt.Sprintf("Improve this draft of the answer to {{ input }}:\n{{ previous_outputs.a%d.response }}", i-1)
		}
		b.WriteString(agentDef(fmt.Sprintf("a%d", i), prompt, modelSpec{}, 2))
	}
	return []byte(b.String())
}

// toolWorkflow is one openai-answer agent, asker; with tool, its model asks
// for the scripted agent lookup once (one tool round) before it answers.
func toolWorkflow(tool bool) []byte {
	src := "orchestrator: {id: tools, strategy: sequential, agents: [asker]}\nagents:\n" +
		"  - {id: asker, type: openai-answer, model: bench-model, prompt: \"Answer: {{ input }}\""
	if tool {
		src += ", tools: [lookup]}\n" +
			"  - {id: lookup, type: scripted, description: Look a word up., prompt: \"look up {{ args.query }}\", responses: {cycle: [\"a definition\"]}}\n"
	} else {
		src += "}\n"
	}
	return []byte(src)
}

// askerModel answers toolWorkflow's asker: a tool call then the answer with
// tool, the answer alone without.
func askerModel(tool bool) agents.Model {
	answer := scripted.Reply{Text: replyFor("answer"), Usage: spend.Usage{PromptTokens: 300, CompletionTokens: 80}}
	if !tool {
		return scripted.New("asker", "bench", []scripted.Reply{answer}, true)
	}
	call := scripted.Reply{ToolCalls: []agents.ToolCall{{ID: "c1", Name: "lookup", Args: `{"query":"recursion"}`}},
		Usage: spend.Usage{PromptTokens: 300, CompletionTokens: 20}}
	return scripted.New("asker", "bench", []scripted.Reply{call, answer}, true)
}

// historyChainLoop is a loop of histChainPasses passes over n chained agents
// and a scorer, each agent's prompt asking for the loop's history with
// has_past_loops() and get_past_loops(): the shape whose cost per agent issue
// 31 found super-linear in n (such a prompt bound every earlier output, and
// the pass's results were de-duplicated pairwise).
func historyChainLoop(n int) []byte {
	var defs, queue strings.Builder
	for i := range n {
		if i > 0 {
			queue.WriteString(", ")
		}
		fmt.Fprintf(&queue, "a%d", i)
		prompt := "{% if has_past_loops() %}Earlier passes scored:{% for p in get_past_loops() %} {{ p.score }}{% endfor %}\n{% endif %}"
		if i == 0 {
			prompt += "Answer: {{ get_input() }}"
		} else {
			prompt += fmt.Sprintf("Improve this draft of the answer to {{ get_input() }}:\n{{ previous_outputs.a%d.response }}", i-1)
		}
		defs.WriteString(agentDef(fmt.Sprintf("a%d", i), prompt, modelSpec{}, 8))
	}
	defs.WriteString(agentDef("scorer", fmt.Sprintf("Score the answer: {{ previous_outputs.a%d.response }}", n-1), modelSpec{}, 8))
	return []byte(fmt.Sprintf(`orchestrator: {id: histchain, agents: [loop]}
agents:
  - id: loop
    type: loop
    max_loops: %d
    score_threshold: 0.99
    score_extraction_pattern: %q
    cognitive_extraction: {enabled: false}
    past_loops_metadata: {score: "{{ score }}"}
    internal_workflow:
      orchestrator: {id: inner, agents: [%s, scorer]}
      agents:
%s`, histChainPasses, scorePattern, queue.String(), defs.String()))
}

// histChainPasses are the passes of one historyChainLoop run.
const histChainPasses = 2

// loopWorkflow is a loop of the three agents with score and lesson extraction
// (default past_loops metadata), running maxLoops iterations.
func loopWorkflow(maxLoops int, persist bool, m modelSpec) []byte {
	var b strings.Builder
	b.WriteString("orchestrator: {id: bench, strategy: sequential, agents: [improvement_loop]}\nagents:\n")
	b.WriteString("  - id: improvement_loop\n    type: loop\n")
	fmt.Fprintf(&b, "    max_loops: %d\n    score_threshold: 0.99\n    score_extraction_pattern: %q\n", maxLoops, scorePattern)
	if persist {
		b.WriteString("    persist_across_runs: true\n")
	}
	b.WriteString(lessonPatterns)
	b.WriteString("    internal_workflow:\n      orchestrator: {id: inner, strategy: sequential, agents: [improver, critic, scorer]}\n      agents:\n")
	b.WriteString(threeAgents(m, 8))
	return []byte(b.String())
}

// forkJoinWorkflow is a fork of n one-agent branches and its join.
func forkJoinWorkflow(n int, m modelSpec) []byte {
	var ids []string
	var defs strings.Builder
	for i := range n {
		id := "branch_" + strconv.Itoa(i)
		ids = append(ids, id)
		defs.WriteString(agentDef(id, fmt.Sprintf("ROLE: %s\nReason about {{ get_input() }} from angle %d of %d.\nBe brief.", id, i+1, n), m, 2))
	}
	return []byte(fmt.Sprintf("orchestrator: {id: fanout, strategy: sequential, agents: [f, j]}\nagents:\n  - {id: f, type: fork, mode: parallel, targets: [%s]}\n  - {id: j, type: join, group: f}\n%s",
		strings.Join(ids, ", "), defs.String()))
}

// The eino comparison's two shapes, as cogloop loops. Both keep what eino's
// graphs keep: the score and a short history (no lesson extraction).
const (
	twoNodePrompt = `ROLE: answer
Improve the answer to: {{ get_input() }}
{% for p in get_past_loops() %}- pass {{ p.loop_number }} scored {{ p.score }}
{% endfor %}`
	branchPrompt = `ROLE: %s
Answer {{ get_input() }} from perspective %s.
{%% for p in get_past_loops() %%}- pass {{ p.loop_number }} scored {{ p.score }}
{%% endfor %%}`
)

// twoNodeLoop: each iteration one model call, then the loop parses the score.
func twoNodeLoop(maxLoops int) []byte {
	return scoredLoop("two_node", maxLoops, "[answer]", agentDef("answer", twoNodePrompt, modelSpec{}, 8))
}

// forkJoinLoop: each iteration a fork of two model calls and a join, then the
// loop parses the score (four nodes: fork, a, b, join).
func forkJoinLoop(maxLoops int) []byte {
	return scoredLoop("fork_join", maxLoops, "[f, j]", `        - {id: f, type: fork, mode: parallel, targets: [[a], [b]]}
        - {id: j, type: join, group: f}
`+agentDef("a", fmt.Sprintf(branchPrompt, "a", "A"), modelSpec{}, 8)+
		agentDef("b", fmt.Sprintf(branchPrompt, "b", "B"), modelSpec{}, 8))
}

// scoredLoop is a workflow of one loop (id loop) of maxLoops passes that parses
// the score and extracts no lessons; its inner workflow runs the agents listed
// in queue, defined by defs (indented by 8).
func scoredLoop(id string, maxLoops int, queue, defs string) []byte {
	return []byte(fmt.Sprintf(`orchestrator: {id: %s, agents: [loop]}
agents:
  - id: loop
    type: loop
    max_loops: %d
    score_threshold: 0.99
    score_extraction_pattern: %q
    cognitive_extraction: {enabled: false}
    past_loops_metadata: {score: "{{ score }}"}
    internal_workflow:
      orchestrator: {id: inner, agents: %s}
      agents:
%s`, id, maxLoops, scorePattern, queue, defs))
}

// bigWorkflow generates a workflow of n agents for `cogloop validate`: LLM
// agents whose prompts read earlier outputs, loops with inner workflows and
// lesson patterns, forks with their joins, routers.
func bigWorkflow(n int) (src []byte, count int) {
	var top []string
	var defs strings.Builder
	prev := ""
	add := func(def string) { defs.WriteString(indentLines(def, 2)); count++ }
	llm := func(id, extra string) string {
		p := "ROLE: " + id + "\nTask: {{ get_input() }}\n"
		if prev != "" {
			p += "Earlier: {{ previous_outputs." + prev + ".response | truncate(300) }}\n"
		}
		p += extra + "{% if get_loop_number() > 1 %}Build on the last pass.{% endif %}\nAnswer in three sentences."
		return agentDef(id, p, modelSpec{}, 0)
	}
	for i := 0; count < n; i++ {
		kind := i % 10
		if left := n - count; (kind == 3 && left < 4) || (kind == 6 && left < 5) || (kind == 8 && left < 3) {
			kind = 0
		}
		switch kind {
		case 3: // a loop of three agents
			id := fmt.Sprintf("loop_%d", i)
			var b strings.Builder
			fmt.Fprintf(&b, "- id: %s\n  type: loop\n  max_loops: 5\n  score_threshold: 0.9\n  score_extraction_pattern: %q\n", id, scorePattern)
			b.WriteString(dedent(lessonPatterns, 2))
			fmt.Fprintf(&b, "  past_loops_metadata: {iteration: \"{{ loop_number }}\", quality: \"{{ score }}\"}\n")
			fmt.Fprintf(&b, "  internal_workflow:\n    orchestrator: {id: inner_%d, agents: [imp_%d, crit_%d, score_%d]}\n    agents:\n", i, i, i, i)
			b.WriteString(indentLines(agentDef(fmt.Sprintf("imp_%d", i), improverPrompt, modelSpec{}, 0), 4))
			b.WriteString(indentLines(agentDef(fmt.Sprintf("crit_%d", i), strings.ReplaceAll(criticPrompt, "improver", fmt.Sprintf("imp_%d", i)), modelSpec{}, 0), 4))
			b.WriteString(indentLines(agentDef(fmt.Sprintf("score_%d", i), strings.NewReplacer("improver", fmt.Sprintf("imp_%d", i), "critic", fmt.Sprintf("crit_%d", i)).Replace(scorerPrompt), modelSpec{}, 0), 4))
			defs.WriteString(indentLines(b.String(), 2))
			count += 4
			top = append(top, id)
			prev = id
		case 6: // a fork of three branches and its join
			f, j := fmt.Sprintf("fork_%d", i), fmt.Sprintf("join_%d", i)
			var bs []string
			for k := range 3 {
				bs = append(bs, fmt.Sprintf("br_%d_%d", i, k))
			}
			add(fmt.Sprintf("- {id: %s, type: fork, targets: [%s]}\n", f, strings.Join(bs, ", ")))
			for _, b := range bs {
				add(llm(b, ""))
			}
			add(fmt.Sprintf("- {id: %s, type: join, group: %s}\n", j, f))
			top = append(top, f, j)
			prev = j
		case 8: // a router choosing between two agents
			r, y, no := fmt.Sprintf("route_%d", i), fmt.Sprintf("yes_%d", i), fmt.Sprintf("no_%d", i)
			add(fmt.Sprintf("- id: %s\n  type: router\n  params: {decision_key: %s, routing_map: {\"true\": [%s], \"false\": [%s]}, fallback_route: [%s]}\n", r, prev, y, no, no))
			add(llm(y, "Say why it holds.\n"))
			add(llm(no, "Say why it does not hold.\n"))
			top = append(top, r)
		default:
			id := fmt.Sprintf("agent_%d", i)
			add(llm(id, "Context: {{ input }}\n"))
			top = append(top, id)
			prev = id
		}
	}
	return []byte("orchestrator:\n  id: generated\n  strategy: sequential\n  agents: [" + strings.Join(top, ", ") + "]\nagents:\n" + defs.String()), count
}

// dedent removes n leading spaces from every line of s.
func dedent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(strings.TrimPrefix(line, pad) + "\n")
	}
	return b.String()
}
