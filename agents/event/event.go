package event

import (
	"github.com/cogloop/cogloop/agents/spend"
	"time"
)

// Event kinds. Every run, agent and loop reports through the same stream.
const (
	RunStart      = "run.start"
	RunEnd        = "run.end"
	AgentStart    = "agent.start"
	AgentEnd      = "agent.end"
	AgentRetry    = "agent.retry"
	LoopStart     = "loop.start"
	LoopIteration = "loop.iteration"
	// LoopPassStart comes before each pass of a loop: loop_number,
	// max_loops and input_preview (the pass's input, truncated).
	LoopPassStart = "loop.pass.start"
	LoopCheck     = "loop.check"
	LoopEnd       = "loop.end"
	BranchStart   = "branch.start"
	BranchEnd     = "branch.end"
	Warning       = "warning"
	// ToolCall comes before an LLM agent runs a tool its model asked for:
	// Node is the calling agent's path, Agent the caller, Data["tool"],
	// Data["round"], Data["id"] (the provider's call id) and Data["args"]
	// (the arguments as sent, scrubbed of the run's secrets).
	ToolCall = "tool.call"
	// ToolResult follows each tool call: the same Data, Duration, Error (a
	// tool error the model was told) and Response (the result sent back,
	// clipped and scrubbed).
	ToolResult = "tool.result"
	// OutputRepair comes before each repair round of an LLM agent's
	// output_schema: Node is the agent's path, Message the violation sent
	// back to the model (scrubbed), Data["round"] (1, 2…),
	// Data["max_repairs"] and Data["path"] (the violation's JSON path).
	OutputRepair = "output.repair"
	// HumanWait comes when a human step starts waiting: Node is its path,
	// Agent its id, Data["kind"], Data["question"], Data["options"] and
	// Data["expires"] (RFC 3339, empty for never).
	HumanWait = "human.wait"
	// HumanAnswer comes when a human step takes its answer: Data["kind"],
	// the answer's fields (approved, score, text, choice, json, comment),
	// Data["answered_by"] and Data["waited_ms"].
	HumanAnswer = "human.answer"
	// RunPause comes when a run stops at a pass boundary because a pause was
	// asked for: Node is the loop's path, Data["after_pass"].
	RunPause = "run.pause"
)

// Event is one thing that happened in a run. Fields that do not apply are zero and
// left out of JSON. Events never carry secrets: agents put rendered prompts and
// responses here, never API keys or headers.
type Event struct {
	Kind string    `json:"kind"`
	Time time.Time `json:"time"`
	Run  string    `json:"run,omitempty"`
	// Node is the path of the agent or loop the event is about.
	Node  string `json:"node,omitempty"`
	Agent string `json:"agent,omitempty"`
	Type  string `json:"type,omitempty"`

	Prompt   string         `json:"prompt,omitempty"`
	Response string         `json:"response,omitempty"`
	Usage    *spend.Usage   `json:"usage,omitempty"`
	Duration time.Duration  `json:"duration_ns,omitempty"`
	Error    string         `json:"error,omitempty"`
	Message  string         `json:"message,omitempty"`
	Attempt  int            `json:"attempt,omitempty"`
	Data     map[string]any `json:"data,omitempty"`

	// Err is the error behind Error as a value, for observers in the same
	// process (a run's RunError unwraps to it, so errors.Is and errors.As
	// reach sentinels such as spend.ErrBudgetExceeded). It is never
	// serialised: records and traces keep the Error text.
	Err error `json:"-"`
}

// Observer receives events. It is called synchronously from the goroutine that
// produced the event, possibly from several goroutines at once (fork branches), so
// it must be safe for concurrent use and should return quickly.
type Observer func(Event)

// Optional event kinds: emitted only when the run asks for them (agents.Run.Deltas,
// agents.Run.ModelCalls), so the default event stream does not change.
const (
	// AgentDelta carries a piece of a model reply as it streams in
	// (Response; Node is the agent's path, Attempt the call's attempt). Pieces
	// are coalesced and scrubbed of the run's secrets; in order, the pieces of
	// one attempt make up its reply.
	AgentDelta = "agent.delta"
	// ModelCall reports one model call (one attempt) after it returned:
	// Node is the calling agent's path, Duration the call's, Usage what the
	// model reported, Error its failure, Data["provider"] and Data["model"]
	// the endpoint, Prompt and Response the (scrubbed) text sent and received.
	ModelCall = "model.call"
)
