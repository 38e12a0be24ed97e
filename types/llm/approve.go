package llm

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/human"
)

// roundPrefix names, in a run's checkpoint, the tool round an agent waits
// in for approvals: "llm-round:<path>" holds a [savedRound].
const roundPrefix = "llm-round:"

// savedRound is an agent call stopped before a tool round whose calls wait
// for approval: the conversation so far and the model's reply, so the
// continued run asks the model nothing again.
type savedRound struct {
	Round    int              `json:"round"`
	Messages []agents.Message `json:"messages,omitempty"`
	Reply    agents.Reply     `json:"reply"`
	Records  []toolRecord     `json:"records,omitempty"`
	Usage    spend.Usage      `json:"usage"`
}

func (s *savedRound) records() []toolRecord { return slices.Clone(s.Records) }

// restoreRound returns the round the agent's call stopped in, if any.
func (a *Agent) restoreRound(in agents.Input) (*savedRound, error) {
	if len(a.ApproveTools) == 0 || in.Run == nil || in.Run.Checkpoint == nil {
		return nil, nil
	}
	var s savedRound
	ok, err := in.Run.Checkpoint.Restore(roundPrefix+in.Path, &s)
	if !ok || err != nil {
		return nil, err
	}
	return &s, nil
}

// needsApproval reports whether a call of tool name waits for a person.
func (a *Agent) needsApproval(name string) bool {
	return slices.Contains(a.ApproveTools, "all") || slices.Contains(a.ApproveTools, name)
}

// approve asks a person about each call of the round that needs approval.
// It returns the rejected calls (call id → what the model is told), or,
// when a call waits for its answer, a waiting interrupt after saving the
// round (no tool of the round has run yet).
func (a *Agent) approve(ctx context.Context, in agents.Input, round savedRound, calls []agents.ToolCall) (map[string]string, error) {
	var rejected map[string]string
	var waiting *fault.Interrupt
	var cp *agents.Checkpoint
	if in.Run != nil {
		cp = in.Run.Checkpoint
	}
	for i, c := range calls {
		if !a.needsApproval(c.Name) {
			continue
		}
		path := fault.JoinPath(in.Path, "approve "+c.Name+" (round "+strconv.Itoa(round.Round)+", call "+strconv.Itoa(i+1)+")")
		q := human.Question{Path: path, Agent: a.ID, Kind: human.KindApprove, Tool: c.Name, ToolArgs: fault.Truncate(c.Args, 4096),
			Text: fmt.Sprintf("agent %q wants to call tool %q with %s: approve?", a.ID, c.Name, fault.Truncate(c.Args, 4096)), AskedAt: time.Now().UTC()}
		if in.Run != nil {
			q.RunID = in.Run.ID
		}
		ans, err := human.Await(ctx, in.Run, q)
		if it := fault.AsInterrupt(err); it != nil {
			if waiting == nil {
				waiting = it
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("approval of tool %q: %w", c.Name, err)
		}
		if !ans.Approved {
			if rejected == nil {
				rejected = map[string]string{}
			}
			why := "a person rejected this call"
			if ans.By != "" {
				why += " (" + ans.By + ")"
			}
			if ans.Comment != "" {
				why += ": " + ans.Comment
			}
			rejected[c.ID] = why
		}
	}
	if waiting == nil {
		return rejected, nil
	}
	if err := cp.Save(context.WithoutCancel(ctx), roundPrefix+in.Path, round); err != nil {
		return nil, fault.Fatal(fmt.Errorf("save the tool round that waits for approval: %w", err), "")
	}
	return nil, waiting
}
