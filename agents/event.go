package agents

import "time"

// Event kinds. Every run, agent and loop reports through the same stream.
const (
	EventRunStart      = "run.start"
	EventRunEnd        = "run.end"
	EventAgentStart    = "agent.start"
	EventAgentEnd      = "agent.end"
	EventAgentRetry    = "agent.retry"
	EventLoopStart     = "loop.start"
	EventLoopIteration = "loop.iteration"
	// EventLoopPassStart comes before each pass of a loop: loop_number,
	// max_loops and input_preview (the pass's input, truncated).
	EventLoopPassStart = "loop.pass.start"
	EventLoopCheck     = "loop.check"
	EventLoopEnd       = "loop.end"
	EventBranchStart   = "branch.start"
	EventBranchEnd     = "branch.end"
	EventWarning       = "warning"
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
	Usage    *Usage         `json:"usage,omitempty"`
	Duration time.Duration  `json:"duration_ns,omitempty"`
	Error    string         `json:"error,omitempty"`
	Message  string         `json:"message,omitempty"`
	Attempt  int            `json:"attempt,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
}

// Observer receives events. It is called synchronously from the goroutine that
// produced the event, possibly from several goroutines at once (fork branches), so
// it must be safe for concurrent use and should return quickly.
type Observer func(Event)
