package loopnode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/plainjson"
	"github.com/cogloop/cogloop/memory"
)

// A loop's checkpoint is written incrementally, so what a run sends to the
// store grows linearly with its passes. Under the loop's key K:
//
//	K          the head: counts, scores, usage, stop reason; small, rewritten after every pass
//	K#start    the input, start time and loaded history; written once, with the first pass
//	K#pass:N   what a resume needs of pass N (its outputs, history entry, answer
//	           hash, best score, mapped values); written once
//
// A resume reads the head and rebuilds the rest from the records of the
// passes it counts (a record written just before a kill, without its head,
// is ignored and the pass runs again), and so is a pass that failed. Conditions keep only what they need:
// stable_output the last output per agent (the last pass's outputs),
// stagnation an answer hash and a best score per pass.

// savedHead is the part of a loop's checkpoint rewritten after every pass.
type savedHead struct {
	Loops     int            `json:"loops"`
	LastPass  int            `json:"last_pass,omitempty"` // the pass whose outputs are the last ones
	Score     float64        `json:"score"`
	BestScore float64        `json:"best"`
	BestIter  int            `json:"best_iteration"`
	Usage     spend.Usage    `json:"usage"`
	Reason    string         `json:"stop_reason,omitempty"`
	ErrText   string         `json:"error,omitempty"`
	Stable    []string       `json:"stable,omitempty"`  // agents stable_output compares next
	Ended     time.Time      `json:"ended"`             // when the last pass ended: the delay counts from it
	Vars      map[string]any `json:"vars,omitempty"`    // loop state variables after the last pass
	LastOK    int            `json:"last_ok,omitempty"` // return: last_successful: the pass it returns
}

// savedStart is written once per loop run.
type savedStart struct {
	Input any               `json:"input,omitempty"`
	Start time.Time         `json:"start"`
	Past  []json.RawMessage `json:"past_loops,omitempty"` // history loaded from the store, as stored
	// Budgets are the run's budget records when the loop started: what a
	// fork from pass 1 starts with.
	Budgets map[string]json.RawMessage `json:"budgets,omitempty"`
}

// savedPass is written once per completed pass.
type savedPass struct {
	Iteration iteration      `json:"iteration"`
	Entry     map[string]any `json:"entry"`
	Outputs   []savedOutput  `json:"outputs,omitempty"`
	Counted   bool           `json:"counted,omitempty"` // the pass counts for stagnation (no agent failed)
	Answer    string         `json:"answer,omitempty"`  // hash of the normalised answer
	Best      float64        `json:"best,omitempty"`    // best score after the pass
	Mapped    map[string]any `json:"mapped,omitempty"`
	// Head is the loop's head after the pass (without a stop reason) and
	// Budgets the run's budget records then: what a fork from the next
	// pass starts with (fork.go). A pass saved late, after a failed save,
	// has neither.
	Head    *savedHead                 `json:"head,omitempty"`
	Budgets map[string]json.RawMessage `json:"budgets,omitempty"`
}

type savedOutput struct {
	ID       string         `json:"id"`
	Response any            `json:"response,omitempty"`
	Fields   map[string]any `json:"fields,omitempty"`
	Shape    map[string]any `json:"shape,omitempty"`
	Loop     *Result        `json:"loop,omitempty"` // a nested loop's typed result
	Prompt   string         `json:"prompt,omitempty"`
	Usage    spend.Usage    `json:"usage"`
	Err      string         `json:"error,omitempty"`
}

func checkpointKey(in agents.Input, id string) string {
	if in.Path != "" {
		return "loop:" + in.Path
	}
	return "loop:" + id
}

func passKey(key string, pass int) string { return key + "#pass:" + strconv.Itoa(pass) }

// answerKey is what stagnation compares of a pass's answer: a hash of the
// normalised text, so neither state nor checkpoints keep every answer.
func answerKey(v any) string {
	sum := sha256.Sum256([]byte(normalizeAnswer(v)))
	return hex.EncodeToString(sum[:16])
}

// notePass queues the record of the pass that just completed; save writes it.
func (n *Node) notePass(in agents.Input, st *state, outs *agents.Outputs) {
	i := len(st.iterations) - 1
	st.lastPass = st.iterations[i].LoopNumber
	if in.Run == nil || in.Run.Checkpoint == nil {
		return
	}
	rec := savedPass{Iteration: st.iterations[i], Entry: st.past[len(st.past)-1], Outputs: saveOutputs(outs)}
	rec.Iteration.Response = ""   // the outputs hold it: restore derives it again
	if len(failures(outs)) == 0 { // recordPass counted it
		rec.Counted, rec.Answer, rec.Best = true, st.answers[len(st.answers)-1], st.bests[len(st.bests)-1]
	}
	if len(n.outputs) > 0 {
		rec.Mapped = map[string]any{}
		for k, vs := range st.mapped {
			rec.Mapped[k] = vs[len(vs)-1]
		}
	}
	st.pending = append(st.pending, rec)
}

// save writes the loop's head after pass loops, with the records of passes
// not saved yet; a failed save keeps them for the next one.
func (n *Node) save(ctx context.Context, in agents.Input, st *state, loops int) {
	cp := in.Run.Checkpoint
	if cp == nil || st.unfinished {
		// A pass that failed (an error that stopped the internal workflow, a
		// history append the store refused) is not completed: the checkpoint
		// stays at the pass before, and a resume runs it again.
		return
	}
	key := checkpointKey(in, n.id)
	head := savedHead{Loops: loops, LastPass: st.lastPass, Score: st.score, BestScore: st.best, BestIter: st.bestIter,
		Usage: st.usage, Reason: st.reason, ErrText: st.errText, Stable: slices.Sorted(maps.Keys(st.stablePrev)), Ended: time.Now(),
		Vars: st.vars, LastOK: st.lastOKPass}
	states := map[string]any{key: head}
	if !st.startSaved {
		start := savedStart{Input: st.input0, Start: st.start, Past: st.past0}
		if loops == 0 {
			start.Budgets = cp.Budgets()
		}
		states[key+"#start"] = start
	}
	for i, rec := range st.pending {
		if i == len(st.pending)-1 && rec.Iteration.LoopNumber == st.lastPass {
			h := head
			h.Reason, h.ErrText = "", ""
			rec.Head, rec.Budgets = &h, cp.Budgets()
		}
		states[passKey(key, rec.Iteration.LoopNumber)] = rec
	}
	if err := cp.SaveAll(ctx, states); err != nil {
		in.Run.Emit(event.Event{Kind: event.Warning, Node: in.Path, Agent: n.id,
			Message: fmt.Sprintf("iteration %d: checkpoint not saved, a resume would repeat it: %v", loops, err)})
		return
	}
	st.startSaved, st.pending = true, nil
}

// restore loads a checkpointed state and reports the number of completed
// iterations; without one it loads the persisted history
// (persist_across_runs) and reports 0.
func (n *Node) restore(ctx context.Context, in agents.Input, st *state) (int, error) {
	st.input0 = st.input
	var cp *agents.Checkpoint
	if in.Run != nil {
		cp = in.Run.Checkpoint
	}
	key := checkpointKey(in, n.id)
	var head savedHead
	ok, err := cp.Restore(key, &head)
	if err != nil {
		return 0, err
	}
	if !ok {
		if n.persistent {
			if st.past, st.past0, err = n.loadHistory(ctx, in); err != nil {
				return 0, err
			}
		}
		// Saved at once, so that a run killed in its first pass resumes too.
		n.save(ctx, in, st, 0)
		return 0, nil
	}
	var start savedStart
	if _, err := cp.Restore(key+"#start", &start); err != nil {
		return 0, err
	}
	st.startSaved = true
	if start.Input != nil {
		st.input = agents.Plain(start.Input)
	}
	st.input0 = st.input
	if !start.Start.IsZero() {
		st.start = start.Start
	}
	for i, e := range start.Past {
		m, err := plainjson.Object(e)
		if err != nil {
			return 0, fmt.Errorf("restore checkpoint of loop %q: past_loops entry %d: %w", n.id, i+1, err)
		}
		st.past = append(st.past, m)
	}
	st.past0 = start.Past

	passes, err := n.restorePasses(cp, key, head.Loops)
	if err != nil {
		return 0, err
	}
	outs := map[int]*agents.Outputs{}
	for _, p := range passes {
		st.past = append(st.past, agents.Plain(p.Entry).(map[string]any))
		o := restoreOutputs(p.Outputs)
		p.Iteration.Response = fault.Truncate(agents.Text(n.answer(o)), n.maxLength)
		st.iterations = append(st.iterations, p.Iteration)
		if p.Counted {
			st.answers = append(st.answers, p.Answer)
			st.bests = append(st.bests, p.Best)
		}
		for _, m := range n.outputs {
			if st.mapped == nil {
				st.mapped = map[string][]any{}
			}
			st.mapped[m.target] = append(st.mapped[m.target], agents.Plain(p.Mapped[m.target]))
		}
		if len(n.outputs) > 0 {
			st.mappedPass = append(st.mappedPass, p.Iteration.LoopNumber)
		}
		st.answered.note(n, p.Iteration.LoopNumber, o, p.Iteration.Score)
		outs[p.Iteration.LoopNumber] = o
	}
	if len(st.past) > n.maxPastLoops {
		st.past = st.past[len(st.past)-n.maxPastLoops:]
	}
	// The input of the last pass, replayed from the start through feedback.
	var last *agents.Outputs
	for pass := 2; pass <= head.Loops; pass++ {
		if o, ok := outs[pass-1]; ok {
			last = o
		}
		if next, err := n.nextInput(st.input, &state{last: last}); err == nil {
			st.input = next
		}
	}
	st.score, st.best, st.bestIter, st.usage = head.Score, head.BestScore, head.BestIter, head.Usage
	st.reason, st.errText, st.lastPass = head.Reason, head.ErrText, head.LastPass
	st.last, st.bestOuts = outs[head.LastPass], outs[head.BestIter]
	st.lastOK, st.lastOKPass = outs[head.LastOK], head.LastOK
	if head.Vars != nil {
		st.vars, _ = agents.Plain(head.Vars).(map[string]any)
	}
	for _, id := range head.Stable {
		if o, ok := st.last.Get(id); ok {
			if st.stablePrev == nil {
				st.stablePrev = map[string]string{}
			}
			st.stablePrev[id] = stableText(o)
		}
	}
	if n.delay > 0 && !head.Ended.IsZero() {
		st.wait = max(0, n.delay-time.Since(head.Ended))
		st.waitSet = true
	}
	return head.Loops, nil
}

// restorePasses decodes the records of passes 1..loops that were saved, in
// pass order.
func (n *Node) restorePasses(cp *agents.Checkpoint, key string, loops int) ([]savedPass, error) {
	var list []savedPass
	for _, path := range cp.Paths(key + "#pass:") {
		num, err := strconv.Atoi(strings.TrimPrefix(path, key+"#pass:"))
		if err != nil || num > loops {
			continue
		}
		var p savedPass
		if _, err := cp.Restore(path, &p); err != nil {
			return nil, err
		}
		list = append(list, p)
	}
	slices.SortFunc(list, func(a, b savedPass) int { return a.Iteration.LoopNumber - b.Iteration.LoopNumber })
	return list, nil
}

// totalCounter counts the run's loop iterations against max_total_iterations;
// a resumed run starts from the passes its loops' heads count (the passes in
// flight when it died run, and count, again).
func totalCounter(in agents.Input) *atomic.Int64 {
	return in.Run.Local(totalKey{}, func() any {
		c := new(atomic.Int64)
		cp := in.Run.Checkpoint
		for _, path := range cp.Paths("loop:") {
			var head savedHead
			if strings.HasSuffix(path, "#start") || strings.Contains(path, "#pass:") {
				continue
			}
			if ok, err := cp.Restore(path, &head); ok && err == nil {
				c.Add(int64(head.Loops))
			}
		}
		return c
	}).(*atomic.Int64)
}

// pause is the wait before the next pass: the delay, or on the first pass
// after a resume what was left of it when the run died.
func (n *Node) pause(st *state) time.Duration {
	if st.waitSet {
		st.waitSet = false
		return st.wait
	}
	return n.delay
}

func saveOutputs(outs *agents.Outputs) []savedOutput {
	var list []savedOutput
	outs.Each(func(id string, o agents.Output) bool {
		list = append(list, savedOutput{ID: id, Response: o.Response, Fields: o.Fields, Shape: o.Shape, Prompt: o.Prompt, Usage: o.Usage, Err: o.Err, Loop: loopOf(o)})
		return true
	})
	return list
}

// loopOf is o's typed loop result, nil for other agents.
func loopOf(o agents.Output) *Result {
	r, _ := o.Typed.(*Result)
	return r
}

func restoreOutputs(list []savedOutput) *agents.Outputs {
	var outs *agents.Outputs
	for _, o := range list {
		out := agents.Output{Response: agents.Plain(o.Response), Prompt: o.Prompt, Usage: o.Usage, Err: o.Err}
		if o.Fields != nil {
			out.Fields = agents.Plain(o.Fields).(map[string]any)
		}
		if o.Shape != nil {
			out.Shape = agents.Plain(o.Shape).(map[string]any)
		}
		if o.Loop != nil {
			out.Typed = o.Loop.restored(out.Fields)
		}
		outs = outs.With(o.ID, out)
	}
	return outs
}

// loadHistory reads the loop's persisted history (persist_across_runs): the
// entries as plain values, and their JSON as stored (for the checkpoint's
// start record, which then needs no encoding).
func (n *Node) loadHistory(ctx context.Context, in agents.Input) ([]map[string]any, []json.RawMessage, error) {
	if in.Run == nil || in.Run.Memory == nil {
		return nil, nil, nil
	}
	entries, err := in.Run.Memory.History(ctx, n.historyID(in), n.maxPastLoops)
	if err != nil {
		return nil, nil, fmt.Errorf("load persisted history of loop %q: %w", n.id, err)
	}
	if len(entries) == 0 {
		if oh, ok := in.Run.Memory.(memory.OrKaHistory); ok {
			return n.orkaHistory(ctx, in, oh)
		}
	}
	out := make([]map[string]any, 0, len(entries))
	raw := make([]json.RawMessage, 0, len(entries))
	for _, e := range entries {
		m, err := plainjson.Object(e.Data)
		if err != nil {
			return nil, nil, fmt.Errorf("load persisted history of loop %q: entry of run %q iteration %d is not a JSON object: %w", n.id, e.RunID, e.Iteration, err)
		}
		out, raw = append(out, m), append(raw, e.Data)
	}
	return out, raw, nil
}

// historyID is the id the loop's persisted history is kept under: its
// history_key, else the workflow's id and the loop's (memory.HistoryID).
func (n *Node) historyID(in agents.Input) string {
	if n.historyKey != "" {
		return n.historyKey
	}
	return memory.HistoryID(in.Run.Workflow, n.id)
}

// historyCommand is the cogloop history command line that names the loop's
// persisted history.
func (n *Node) historyCommand(in agents.Input) string {
	if n.historyKey != "" || in.Run.Workflow == "" {
		return "cogloop history --key " + shellWord(n.historyID(in))
	}
	return "cogloop history --workflow " + shellWord(in.Run.Workflow) + " --loop " + shellWord(n.id)
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c == '/' || c == ':' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// appendHistory writes one iteration's entry to the loop's persisted history;
// a resumed run's redo of the iteration replaces the entry of the attempt it
// discards.
func (n *Node) appendHistory(ctx context.Context, in agents.Input, loop int, entry map[string]any) error {
	if in.Run == nil || in.Run.Memory == nil {
		return nil
	}
	data, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("encode past_loops entry: %w", err)
	}
	e := memory.Entry{RunID: in.Run.ID, LoopPath: checkpointKey(in, n.id), Iteration: loop, Data: data, TTL: n.historyTTL}
	if err := in.Run.Memory.Append(ctx, n.historyID(in), e); err != nil {
		return fmt.Errorf("iteration %d was not persisted: %w", loop, err)
	}
	return nil
}

// orkaHistory reads the history OrKa persisted for the loop (its key
// past_loops:<loop id> in the same Redis) when cogloop's own is empty: its
// last max_past_loops entries, with a warning that says where they came
// from and how to copy them for good. A value that is not OrKa's list is
// left alone with a warning.
func (n *Node) orkaHistory(ctx context.Context, in agents.Input, oh memory.OrKaHistory) ([]map[string]any, []json.RawMessage, error) {
	key := memory.OrKaPastLoopsKey(n.id)
	warn := func(msg string, code string) error {
		return in.Run.Warn(event.Event{Node: in.Path, Agent: n.id, Type: "loop", Message: msg,
			Data: map[string]any{"code": code, "key": key}})
	}
	data, found, err := oh.OrKaPastLoops(ctx, n.id)
	if err != nil {
		return nil, nil, warn(fmt.Sprintf("loop %q: OrKa's history (key %s) could not be read, so the loop starts without history: %v", n.id, key, err), "orka_history_unreadable")
	}
	if !found {
		return nil, nil, nil
	}
	raw, err := memory.ParseOrKaPastLoops(data)
	if err != nil {
		return nil, nil, warn(fmt.Sprintf("loop %q: key %s is not OrKa's history, so the loop starts without history: %v", n.id, key, err), "orka_history_unreadable")
	}
	if n.maxPastLoops > 0 && len(raw) > n.maxPastLoops {
		raw = raw[len(raw)-n.maxPastLoops:]
	}
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i], _ = plainjson.Object(r) // ParseOrKaPastLoops checked each is an object
	}
	if err := warn(fmt.Sprintf("loop %q has no cogloop history: read %d past_loops entries from OrKa's key %s (run '%s' to copy them into cogloop's history for good)",
		n.id, len(out), key, n.historyCommand(in)+" --import-orka"), "orka_history_read"); err != nil {
		return nil, nil, err
	}
	return out, raw, nil
}
