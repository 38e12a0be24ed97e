package loopnode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/memory"
)

// savedState is a loop's checkpoint: everything a resumed run needs to go on
// after the last completed iteration without calling any model for it again.
type savedState struct {
	Loops      int               `json:"loops"`
	Past       []map[string]any  `json:"past_loops"`
	Iterations []iteration       `json:"iterations"`
	Last       []savedOutput     `json:"last"`
	Score      float64           `json:"score"`
	BestScore  float64           `json:"best"`
	BestIter   int               `json:"best_iteration"`
	Usage      agents.Usage      `json:"usage"`
	Reason     string            `json:"stop_reason,omitempty"`
	ErrText    string            `json:"error,omitempty"`
	Best       []savedOutput     `json:"best_outputs,omitempty"`
	Input      any               `json:"input,omitempty"`
	Answers    []string          `json:"answers,omitempty"`
	Bests      []float64         `json:"bests,omitempty"`
	Stable     map[string]string `json:"stable,omitempty"`
	Mapped     map[string][]any  `json:"mapped,omitempty"`
	Start      time.Time         `json:"start"`
}

type savedOutput struct {
	ID       string         `json:"id"`
	Response any            `json:"response,omitempty"`
	Fields   map[string]any `json:"fields,omitempty"`
	Prompt   string         `json:"prompt,omitempty"`
	Usage    agents.Usage   `json:"usage"`
	Err      string         `json:"error,omitempty"`
}

func checkpointKey(in agents.Input, id string) string {
	if in.Path != "" {
		return "loop:" + in.Path
	}
	return "loop:" + id
}

func (n *Node) save(ctx context.Context, in agents.Input, st *state, loops int) {
	s := savedState{Loops: loops, Past: st.past, Iterations: st.iterations, Score: st.score,
		BestScore: st.best, BestIter: st.bestIter, Usage: st.usage, Reason: st.reason, ErrText: st.errText,
		Last: saveOutputs(st.last), Best: saveOutputs(st.bestOuts), Input: st.input, Answers: st.answers,
		Bests: st.bests, Stable: st.stablePrev, Mapped: st.mapped, Start: st.start}
	if err := in.Run.Checkpoint.Save(ctx, checkpointKey(in, n.id), s); err != nil {
		in.Run.Emit(agents.Event{Kind: agents.EventWarning, Node: in.Path, Agent: n.id,
			Message: fmt.Sprintf("iteration %d: checkpoint not saved, a resume would repeat it: %v", loops, err)})
	}
}

// restore loads a checkpointed state; it reports the number of completed
// iterations, or -1 when there is nothing to restore.
func (n *Node) restore(in agents.Input, st *state) (int, error) {
	var s savedState
	ok, err := in.Run.Checkpoint.Restore(checkpointKey(in, n.id), &s)
	if err != nil || !ok {
		return -1, err
	}
	for _, e := range s.Past {
		st.past = append(st.past, agents.Plain(e).(map[string]any))
	}
	st.iterations, st.score, st.best, st.bestIter = s.Iterations, s.Score, s.BestScore, s.BestIter
	st.usage, st.reason, st.errText = s.Usage, s.Reason, s.ErrText
	st.last, st.bestOuts = restoreOutputs(s.Last), restoreOutputs(s.Best)
	if s.Input != nil {
		st.input = agents.Plain(s.Input)
	}
	st.answers, st.bests = s.Answers, s.Bests
	if s.Stable != nil {
		st.stablePrev = s.Stable
	}
	if s.Mapped != nil {
		st.mapped = map[string][]any{}
		for k, vs := range s.Mapped {
			st.mapped[k] = agents.Plain(vs).([]any)
		}
	}
	if !s.Start.IsZero() {
		st.start = s.Start
	}
	return s.Loops, nil
}

func saveOutputs(outs *agents.Outputs) []savedOutput {
	var list []savedOutput
	outs.Each(func(id string, o agents.Output) bool {
		list = append(list, savedOutput{ID: id, Response: o.Response, Fields: o.Fields, Prompt: o.Prompt, Usage: o.Usage, Err: o.Err})
		return true
	})
	return list
}

func restoreOutputs(list []savedOutput) *agents.Outputs {
	var outs *agents.Outputs
	for _, o := range list {
		out := agents.Output{Response: agents.Plain(o.Response), Prompt: o.Prompt, Usage: o.Usage, Err: o.Err}
		if o.Fields != nil {
			out.Fields = agents.Plain(o.Fields).(map[string]any)
		}
		outs = outs.With(o.ID, out)
	}
	return outs
}

// loadHistory reads the loop's persisted history (persist_across_runs).
func (n *Node) loadHistory(ctx context.Context, in agents.Input) ([]map[string]any, error) {
	if in.Run == nil || in.Run.Memory == nil {
		return nil, nil
	}
	entries, err := in.Run.Memory.History(ctx, n.id, n.maxPastLoops)
	if err != nil {
		return nil, fmt.Errorf("load persisted history of loop %q: %w", n.id, err)
	}
	out := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		dec := json.NewDecoder(bytes.NewReader(e.Data))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("load persisted history of loop %q: entry of run %q iteration %d is not a JSON object: %w", n.id, e.RunID, e.Iteration, err)
		}
		out = append(out, agents.Plain(m).(map[string]any))
	}
	return out, nil
}

// persist appends one iteration's entry to the loop's persisted history.
func (n *Node) appendHistory(ctx context.Context, in agents.Input, loop int, entry map[string]any) error {
	if in.Run == nil || in.Run.Memory == nil {
		return nil
	}
	data, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("encode past_loops entry: %w", err)
	}
	e := memory.Entry{RunID: in.Run.ID, LoopPath: checkpointKey(in, n.id), Iteration: loop, Data: data}
	if err := in.Run.Memory.Append(ctx, n.id, e); err != nil {
		return fmt.Errorf("iteration %d was not persisted: %w", loop, err)
	}
	return nil
}
