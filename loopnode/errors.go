package loopnode

import (
	"fmt"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// Error policies (on_error): what a pass with a failed agent does to the loop.
const (
	onErrorContinue = "continue" // OrKa: the failure is an error record, the loop goes on
	onErrorStop     = "stop"     // the first pass with a failed agent ends the loop
)

// DefaultMaxFailedPasses is how many passes in a row may have a failed agent
// before the loop stops with stop_reason error (max_failed_passes).
const DefaultMaxFailedPasses = 2

// readErrorPolicy reads on_error and max_failed_passes.
func readErrorPolicy(c *load.Config) (stopOnError bool, maxFailed int) {
	switch p := c.String("on_error", onErrorContinue); p {
	case onErrorContinue:
	case onErrorStop:
		stopOnError = true
	default:
		c.Errorf("on_error", "on_error must be continue (a failed agent is recorded and the loop goes on) or stop (the first pass with a failed agent ends the loop), not %q", p)
	}
	maxFailed = c.Int("max_failed_passes", DefaultMaxFailedPasses, 1, 1000)
	return stopOnError, maxFailed
}

// failure is an agent of a pass that ended in error.
type failure struct {
	agent   string
	message string // the error, starting with the agent's path
}

// failures lists the agents of a pass's outputs that ended in error, at any
// depth (fork branches, nested workflows), each once. A nested loop counts as
// failed when it stopped with stop_reason error: the failures it survived under
// its own policy are its own; so are the children a failover tried before one
// succeeded.
func failures(outs *agents.Outputs) []failure {
	var f failureWalk
	f.walk(outs, 0)
	return f.out
}

// failureWalk collects failures; seen (made at the first failure) holds the
// agent and message pairs already listed.
type failureWalk struct {
	out  []failure
	seen map[string]bool
}

func (f *failureWalk) walk(outs *agents.Outputs, depth int) {
	if depth > 64 {
		return
	}
	outs.Each(func(id string, o agents.Output) bool {
		msg := ""
		switch {
		case o.Failed():
			msg = o.Err
		case o.Fields["stop_reason"] == StopError:
			msg, _ = o.Fields["error"].(string)
			if msg == "" {
				msg = "loop stopped with stop_reason error"
			}
		}
		if msg != "" {
			if f.seen == nil {
				f.seen = map[string]bool{}
			}
			if key := id + "\x00" + msg; !f.seen[key] {
				f.seen[key] = true
				f.out = append(f.out, failure{agent: id, message: msg})
			}
		}
		if o.Children == nil {
			return true
		}
		_, isLoop := o.Fields["stop_reason"]
		_, recovered := o.Fields["successful_child"]
		if !isLoop && !recovered {
			f.walk(o.Children, depth+1)
		}
		return true
	})
}

// failedAgents is the agent ids of fs, for events and outputs.
func failedAgents(fs []failure) []any {
	ids := make([]any, len(fs))
	for i, f := range fs {
		ids[i] = f.agent
	}
	return ids
}

// failedRun counts the passes in a row, up to the last one, that had a failed
// agent; a resumed loop counts the passes of its checkpoint too.
func failedRun(its []iteration) int {
	n := 0
	for i := len(its) - 1; i >= 0 && len(its[i].Errors) > 0 && (!its[i].Cut || its[i].TimedOut); i-- {
		n++
	}
	return n
}

// policyStop says why the error policy ends the loop after a pass whose failed
// agents are fs, or "" when it does not.
func (n *Node) policyStop(st *state, loop int, fs []failure) string {
	if len(fs) == 0 {
		return ""
	}
	first := fs[0].message
	if len(fs) > 1 {
		first += fmt.Sprintf(" (and %d more failed agents)", len(fs)-1)
	}
	if n.stopOnError {
		return fmt.Sprintf("iteration %d had a failed agent (on_error: stop): %s", loop, first)
	}
	if k := failedRun(st.iterations); k >= n.maxFailed {
		return fmt.Sprintf("%d passes in a row had a failed agent (max_failed_passes: %d), the last: %s", k, n.maxFailed, first)
	}
	return ""
}
