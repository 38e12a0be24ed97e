package loopnode

import (
	"context"
	"errors"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
)

// errPassFailed is what a pass with a failed agent is to the retry policy.
var errPassFailed = errors.New("a pass had a failed agent")

// runPass runs the internal workflow for one pass; under retry: a failed pass
// (an error, or an agent that failed in it) runs again as the policy says,
// each retry an agent.retry event naming the loop. It returns the last
// attempt's output, with the usage of every attempt, and the attempts made.
// A pass the budget refused, or that ran over iteration_timeout, is not retried.
func (n *Node) runPass(ctx context.Context, in agents.Input, path string, pass agents.Input) (agents.Output, int, error) {
	if n.retry == nil {
		out, err := n.inner.Run(ctx, pass)
		return out, 1, err
	}
	var (
		out      agents.Output
		runErr   error
		usage    spend.Usage
		attempts int
	)
	_ = n.retry.Do(ctx, agents.Input{Path: path, Run: in.Run}, n.id, func(ctx context.Context, attempt int) error {
		attempts = attempt
		out, runErr = n.inner.Run(ctx, pass)
		usage = usage.Add(out.Usage)
		switch {
		case runErr != nil:
			return runErr
		case pass.Budget.Exceeded():
			return nil
		}
		if fs := failures(out.Children); len(fs) > 0 {
			return errors.Join(errPassFailed, errors.New(fs[0].message))
		}
		return nil
	})
	out.Usage = usage
	return out, attempts, runErr
}
