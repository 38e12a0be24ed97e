package prompt

import (
	"encoding/binary"
	"fmt"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// OrKa's helper functions, with the behaviour OrKa intends (spec §2 [intent]).
// They are shared functions that find the Data of the current render through
// the evaluation context, so a parsed template holds no per-call state.

func helperFunctions() map[string]any {
	h := map[string]helper{
		"get_input":                   getInput,
		"get_current_topic":           getInput,
		"get_input_field":             getInputField,
		"get_loop_number":             getLoopNumber,
		"get_past_loops":              getPastLoops,
		"has_past_loops":              hasPastLoops,
		"get_past_insights":           getPastInsights,
		"get_past_loop_data":          getPastLoopData,
		"get_past_loops_metadata":     getPastLoopsMetadata,
		"get_round_info":              getRoundInfo,
		"get_score_threshold":         getScoreThreshold,
		"get_loop_rounds":             getLoopRounds,
		"get_final_score":             getFinalScore,
		"get_loop_status":             getLoopStatus,
		"get_loop_output":             getLoopOutput,
		"get_agent_response":          getAgentResponse,
		"safe_get_response":           safeGetResponse,
		"get_fork_responses":          getForkResponses,
		"joined_results":              joinedResults,
		"get_progressive_response":    societyResponse("progressive_refinement", "radical_progressive"),
		"get_conservative_response":   societyResponse("conservative_refinement", "traditional_conservative"),
		"get_realist_response":        societyResponse("realist_refinement", "pragmatic_realist"),
		"get_purist_response":         societyResponse("purist_refinement", "ethical_purist"),
		"get_collaborative_responses": getCollaborativeResponses,
		"safe_get":                    safeGet,
		"safe_str":                    safeStr,
		"has_context":                 hasContext,
		"truncate_text":               truncateText,
		"format_loop_metadata":        formatLoopMetadata,
		"to_json_string":              toJSONString,
		"get_execution_artifacts":     getExecutionArtifacts,
		"get_debate_evolution":        getDebateEvolution,
		"get_agent_memory_context":    getAgentMemoryContext,
		"get_my_past_memory":          getMyPastMemory,
		"get_my_past_decisions":       getMyPastDecisions,
		"format_memory_query":         formatMemoryQuery,
		"now":                         now,
	}
	out := make(map[string]any, len(h))
	for name, fn := range h {
		self := exec.AsValue(&helperEntry{name: name, fn: fn})
		out[name] = helperFunc(func(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
			if va == whoAreYou {
				return self
			}
			st := evalState(e)
			d := &Data{}
			if st != nil {
				d = &st.d
			}
			v, err := fn(call{name: name, d: d, e: e, va: va})
			if err != nil {
				return exec.AsValue(fmt.Errorf("%s(): %w", name, err))
			}
			return toValue(v)
		})
	}
	return out
}

// helperEntry is a helper with its name, as the fast path calls it.
type helperEntry struct {
	name string
	fn   helper
}

// whoAreYou asks a helperFunc for its helperEntry: the fast path calls the
// helper directly (no gonja value wrapping), and a template that binds a helper
// to another name ({% set f = get_input %}) still calls the right one.
var whoAreYou = &exec.VarArgs{}

// call runs the helper with the render's data.
func (h *helperEntry) call(st *renderState, va *exec.VarArgs) (any, error) {
	v, err := h.fn(call{name: h.name, d: &st.d, e: st.ev, va: va})
	if err != nil {
		return nil, fmt.Errorf("%s(): %w", h.name, err)
	}
	return v, nil
}

// toValue wraps a Go value for gonja; gonja crashes on a nil *exec.Value.
func toValue(v any) *exec.Value {
	switch x := v.(type) {
	case *exec.Value:
		if x == nil {
			return exec.AsValue(nil)
		}
		return x
	case *pyvalue.Dict:
		return exec.AsValue(&dictView{d: x})
	}
	return exec.AsValue(v)
}

// helper is one helper function: the call's Data and arguments in, a value out.
type helper func(c call) (any, error)

type call struct {
	name string
	d    *Data
	e    *exec.Evaluator
	va   *exec.VarArgs
}

// args binds the positional and keyword arguments to names; missing ones are
// nil *exec.Value.
func (c call) args(names ...string) ([]*exec.Value, error) {
	if len(c.va.Args) > len(names) {
		return nil, fmt.Errorf("takes at most %d arguments (%d given)", len(names), len(c.va.Args))
	}
	out := make([]*exec.Value, len(names))
	copy(out, c.va.Args)
	for k, v := range c.va.KwArgs {
		i := slices.Index(names, k)
		if i < 0 {
			return nil, fmt.Errorf("unexpected keyword argument %q", k)
		}
		if i < len(c.va.Args) {
			return nil, fmt.Errorf("got multiple values for argument %q", k)
		}
		out[i] = v
	}
	return out, nil
}

// given reports whether an optional argument was passed and is not None.
func given(v *exec.Value) bool { return v != nil && !v.IsNil() }

func str(v *exec.Value, def string) string {
	if v == nil {
		return def
	}
	return pyStr(v)
}

// now is OrKa's memory-writer now(): the render's timestamp variable when one
// is bound (a memory writer binds the moment it stores), else the current UTC
// time, ISO-8601.
func now(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	if ts, ok := c.d.Vars["timestamp"].(string); ok && ts != "" {
		return ts, nil
	}
	return time.Now().UTC().Format(time.RFC3339Nano), nil
}

func getInput(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	in := c.d.Input
	if isMapping(in) {
		if v, ok := mapGet(in, "input"); ok {
			return v, nil
		}
	}
	return pyStr(in), nil
}

func getInputField(c call) (any, error) {
	a, err := c.args("input_obj", "field", "default")
	if err != nil {
		return nil, err
	}
	if a[1] == nil {
		return nil, fmt.Errorf("missing argument 'field'")
	}
	if a[0] != nil && isMapping(a[0]) {
		if v, ok := mapGet(a[0], pyStr(a[1])); ok {
			return v, nil
		}
	}
	return a[2], nil
}

func getLoopNumber(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	return loopNumber(c.d), nil
}

func loopNumber(d *Data) any {
	if v, ok := d.bound("loop_number"); ok {
		return v
	}
	if isMapping(d.Input) {
		if v, ok := mapGet(d.Input, "loop_number"); ok {
			return v
		}
	}
	return 1
}

func getPastLoops(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	return pastLoops(c.d), nil
}

// pastLoops finds the loop history: input.previous_outputs.past_loops inside a
// loop iteration, else previous_outputs.past_loops, else the past_loops of the
// first loop output (or its result) in previous_outputs.
func pastLoops(d *Data) any {
	found := func(v any) any {
		if v == nil {
			return []any{}
		}
		return v
	}
	if isMapping(d.Input) {
		if prev, ok := mapGet(d.Input, "previous_outputs"); ok && isMapping(prev) {
			if v, ok := mapGet(prev, "past_loops"); ok {
				return found(v)
			}
		}
	}
	if d.EachOutput != nil {
		// One walk: an output named past_loops wins, else the first output
		// that holds a history.
		var first, named any
		var hasFirst, hasNamed bool
		d.EachOutput(func(id string, out any) bool {
			if id == "past_loops" {
				named, hasNamed = out, true
				return false
			}
			if !hasFirst {
				first, hasFirst = historyOf(out)
			}
			return true
		})
		switch {
		case hasNamed:
			return found(named)
		case hasFirst:
			return found(first)
		}
		return []any{}
	}
	if v, ok := d.Previous["past_loops"]; ok {
		return found(v)
	}
	for _, id := range d.previousIDs() {
		if v, ok := historyOf(d.Previous[id]); ok {
			return found(v)
		}
	}
	return []any{}
}

// historyOf is the past_loops of an output, or of its result.
func historyOf(out any) (any, bool) {
	if !isMapping(out) {
		return nil, false
	}
	if v, ok := mapGet(out, "past_loops"); ok {
		return v, true
	}
	if res, ok := mapGet(out, "result"); ok && isMapping(res) {
		if v, ok := mapGet(res, "past_loops"); ok {
			return v, true
		}
	}
	return nil, false
}

// lastPastLoop is the most recent history entry.
func lastPastLoop(d *Data) (any, bool) {
	loops := pastLoops(d)
	if listLen(loops) == 0 {
		return nil, false
	}
	return listAt(loops, -1)
}

func hasPastLoops(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	return listLen(pastLoops(c.d)) > 0, nil
}

func getPastInsights(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	const none = "No synthesis insights found"
	last, ok := lastPastLoop(c.d)
	if !ok {
		return none, nil
	}
	if v, ok := mapGet(last, "synthesis_insights"); ok {
		return v, nil
	}
	// OrKa reads a synthesis_insights key nothing writes: the insights its
	// cognitive extraction found in past passes are what the name promises.
	if s := pastInsights(pastLoops(c.d)); s != "" {
		return s, nil
	}
	return none, nil
}

// pastInsights is the insights extracted in past passes, one line per pass
// that found some ("loop 2: ..."), oldest first; "" when none did.
func pastInsights(loops any) string {
	var lines []string
	for i, n := 0, listLen(loops); i < n; i++ {
		entry, _ := listAt(loops, i)
		v, ok := mapGet(entry, "insights")
		if !ok || v == nil || pyStr(v) == "" {
			continue
		}
		num, ok := mapGet(entry, "loop_number")
		if !ok {
			num = i + 1
		}
		lines = append(lines, "loop "+pyStr(num)+": "+pyStr(v))
	}
	return strings.Join(lines, "\n")
}

func getPastLoopData(c call) (any, error) {
	a, err := c.args("key")
	if err != nil {
		return nil, err
	}
	last, ok := lastPastLoop(c.d)
	if !ok {
		return "No past loops found", nil
	}
	if !given(a[0]) {
		return pyStr(last), nil
	}
	key := pyStr(a[0])
	if v, ok := mapGet(last, key); ok {
		return v, nil
	}
	return "No " + key + " found", nil
}

func getPastLoopsMetadata(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	if v, ok := c.d.bound("past_loops_metadata"); ok {
		return v, nil
	}
	if isMapping(c.d.Input) {
		if v, ok := mapGet(c.d.Input, "past_loops_metadata"); ok {
			return v, nil
		}
	}
	return map[string]any{}, nil
}

func getRoundInfo(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	n := pyStr(loopNumber(c.d))
	if last, ok := lastPastLoop(c.d); ok {
		if v, ok := mapGet(last, "round"); ok {
			return v, nil
		}
	}
	return n, nil
}

func getScoreThreshold(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	if v, ok := c.d.bound("score_threshold"); ok {
		return v, nil
	}
	return 0.9, nil
}

// eachOutput calls fn with every output mapping, in run order, and then its
// result mapping, until fn reports a find.
func eachOutput(d *Data, fn func(out any) (any, bool)) (any, bool) {
	for _, id := range d.previousIDs() {
		out := d.Previous[id]
		if !isMapping(out) {
			continue
		}
		if v, ok := fn(out); ok {
			return v, true
		}
		if res, ok := mapGet(out, "result"); ok && isMapping(res) {
			if v, ok := fn(res); ok {
				return v, true
			}
		}
	}
	return nil, false
}

func getLoopRounds(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	if n := listLen(pastLoops(c.d)); n > 0 {
		return n, nil
	}
	if v, ok := eachOutput(c.d, func(out any) (any, bool) { return mapGet(out, "loops_completed") }); ok {
		return v, nil
	}
	return "Unknown", nil
}

func getFinalScore(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	if last, ok := lastPastLoop(c.d); ok {
		for _, k := range []string{"agreement_score", "final_score", "score"} {
			if v, ok := mapGet(last, k); ok {
				return v, nil
			}
		}
	}
	v, ok := eachOutput(c.d, func(out any) (any, bool) {
		for _, k := range mapKeys(out) {
			if !strings.Contains(strings.ToLower(k), "score") {
				continue
			}
			v, _ := mapGet(out, k)
			switch x := unval(v).(type) {
			case string:
				if f, ok := pyNumber(x); ok {
					return f, true
				}
			case bool, nil:
			default:
				if isNumber(x) {
					return x, true
				}
			}
		}
		return nil, false
	})
	if ok {
		return v, nil
	}
	return "Unknown", nil
}

func getLoopStatus(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	if v, ok := eachOutput(c.d, func(out any) (any, bool) { return mapGet(out, "status") }); ok {
		return v, nil
	}
	return "completed", nil
}

// getLoopOutput returns a loop's output mapping: its "response" when that is a
// mapping (OrKa's normalised log shape), else the output itself (cogloop puts the
// answer text in response and loops_completed, final_score, past_loops, result,
// ... next to it), else {}.
func getLoopOutput(c call) (any, error) {
	a, err := c.args("agent_id", "previous_outputs")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, fmt.Errorf("missing argument 'agent_id'")
	}
	var prev any = c.d.Previous
	if given(a[1]) {
		prev = a[1]
	}
	out, ok := mapGet(prev, pyStr(a[0]))
	if !ok || !isMapping(out) {
		return map[string]any{}, nil
	}
	if resp, ok := mapGet(out, "response"); ok && isMapping(resp) {
		return resp, nil
	}
	return out, nil
}

// agentText is OrKa's lookup of an agent's answer in its output
// (agent_helpers.py): a log-shaped payload first, then result, then response;
// a nested {response: ...} is unwrapped once. found is false for a mapping
// with none of these (a join, a memory reader): get_agent_response then gives
// the mapping's str(), safe_get_response its fallback.
func agentText(out any) (text string, found bool) {
	if !isMapping(out) {
		return pyStr(out), true
	}
	unwrap := func(v any) string {
		if isMapping(v) {
			if r, ok := mapGet(v, "response"); ok {
				return pyStr(r)
			}
		}
		return pyStr(v)
	}
	if p, ok := mapGet(out, "payload"); ok && isMapping(p) {
		for _, k := range []string{"response", "result"} {
			if v, ok := mapGet(p, k); ok {
				return unwrap(v), true
			}
		}
	}
	for _, k := range []string{"result", "response"} {
		if v, ok := mapGet(out, k); ok {
			return unwrap(v), true
		}
	}
	return pyStr(out), false
}

func getAgentResponse(c call) (any, error) {
	a, err := c.args("agent_name")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, fmt.Errorf("missing argument 'agent_name'")
	}
	name := pyStr(a[0])
	out, ok := c.d.Previous[name]
	if !ok {
		return "No response found for " + name, nil
	}
	text, _ := agentText(out)
	return text, nil
}

func safeGetResponse(c call) (any, error) {
	a, err := c.args("agent_name", "fallback", "prev_outputs")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, fmt.Errorf("missing argument 'agent_name'")
	}
	fallback := any("No response available")
	if a[1] != nil {
		fallback = a[1]
	}
	var prev any = c.d.Previous
	if given(a[2]) {
		prev = a[2]
	}
	return responseOr(prev, pyStr(a[0]), fallback), nil
}

func responseOr(prev any, name string, fallback any) any {
	out, ok := mapGet(prev, name)
	if !ok {
		return fallback
	}
	text, found := agentText(out)
	if !found || text == "" || strings.HasPrefix(text, "No response found") {
		return fallback
	}
	return text
}

// societyResponse is one of OrKa's cognitive-society shortcuts: the first of the
// two agents that answered.
func societyResponse(first, second string) helper {
	return func(c call) (any, error) {
		if _, err := c.args(); err != nil {
			return nil, err
		}
		return society(c.d, first, second), nil
	}
}

func society(d *Data, first, second string) string {
	const none = "No response available"
	if v := responseOr(d.Previous, first, none); v != none {
		return pyStr(v)
	}
	return pyStr(responseOr(d.Previous, second, none))
}

func getCollaborativeResponses(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	var parts []string
	for _, s := range []struct{ label, a, b string }{
		{"Progressive", "progressive_refinement", "radical_progressive"},
		{"Conservative", "conservative_refinement", "traditional_conservative"},
		{"Realist", "realist_refinement", "pragmatic_realist"},
		{"Purist", "purist_refinement", "ethical_purist"},
	} {
		if v := society(c.d, s.a, s.b); v != "No response available" {
			parts = append(parts, s.label+": "+v)
		}
	}
	if len(parts) == 0 {
		return "No collaborative responses available", nil
	}
	return strings.Join(parts, "\n\n"), nil
}

// forkResponses collects {branch: response} from a fork/join output and its result.
func forkResponses(out any) map[string]any {
	found := map[string]any{}
	collect := func(m any) {
		for _, k := range mapKeys(m) {
			v, _ := mapGet(m, k)
			if isMapping(v) {
				if r, ok := mapGet(v, "response"); ok {
					found[k] = r
				}
			}
		}
	}
	if !isMapping(out) {
		return found
	}
	collect(out)
	if res, ok := mapGet(out, "result"); ok && isMapping(res) {
		collect(res)
	}
	return found
}

func getForkResponses(c call) (any, error) {
	a, err := c.args("fork_group_name")
	if err != nil {
		return nil, err
	}
	if given(a[0]) && truthy(a[0]) {
		out, _ := mapGet(c.d.Previous, pyStr(a[0]))
		return forkResponses(out), nil
	}
	all := map[string]any{}
	for _, id := range c.d.previousIDs() {
		if r := forkResponses(c.d.Previous[id]); len(r) > 0 {
			all[id] = r
		}
	}
	return all, nil
}

func joinedResults(c call) (any, error) {
	if _, err := c.args(); err != nil {
		return nil, err
	}
	for _, id := range c.d.previousIDs() {
		out := c.d.Previous[id]
		if isMapping(out) {
			if v, ok := mapGet(out, "joined_results"); ok {
				return v, nil
			}
		}
	}
	return []any{}, nil
}

func safeGet(c call) (any, error) {
	a, err := c.args("obj", "key", "default")
	if err != nil {
		return nil, err
	}
	if a[1] == nil {
		return nil, fmt.Errorf("missing argument 'key'")
	}
	def := any("")
	if a[2] != nil {
		def = a[2]
	}
	if a[0] != nil && isMapping(a[0]) {
		if v, ok := mapGet(a[0], pyStr(a[1])); ok {
			return v, nil
		}
	}
	return def, nil
}

func safeStr(c call) (any, error) {
	a, err := c.args("v")
	if err != nil {
		return nil, err
	}
	return str(a[0], ""), nil
}

func hasContext(c call) (any, error) {
	a, err := c.args("agent_name")
	if err != nil {
		return nil, err
	}
	name := str(a[0], "")
	if v, ok := c.d.Previous[name]; ok {
		return truthy(v), nil
	}
	if isMapping(c.d.Input) {
		if v, ok := mapGet(c.d.Input, "conversation_context"); ok && truthy(v) {
			return true, nil
		}
	}
	if mems, ok := c.d.bound("memories"); ok && isList(mems) {
		for i := range listLen(mems) {
			m, _ := listAt(mems, i)
			if an, ok := mapGet(m, "agent_name"); ok && pyStr(an) == name {
				return true, nil
			}
		}
	}
	return false, nil
}

func truncateText(c call) (any, error) {
	a, err := c.args("text", "length", "suffix")
	if err != nil {
		return nil, err
	}
	return truncate(a[0], a[1], a[2])
}

// truncate is OrKa's truncate_text: at most length characters, the last
// len(suffix) of them replaced by suffix when the text is cut.
func truncate(text, length, suffix *exec.Value) (string, error) {
	if text == nil || text.IsNil() {
		return "", nil
	}
	n := 100
	if given(length) {
		if !isInt(length) {
			return "", fmt.Errorf("length must be an integer, not %s", typeName(length))
		}
		n = length.Integer()
	}
	sfx := "..."
	if given(suffix) && !suffix.IsBool() { // a bool is Jinja's killwords argument: ignored
		sfx = pyStr(suffix)
	}
	return truncateString(pyStr(text), n, sfx), nil
}

// truncateString is truncate on a string, with length n and suffix sfx.
func truncateString(s string, n int, sfx string) string {
	if n < 0 {
		return sfx
	}
	if len(s) <= n {
		return s // no more characters than bytes
	}
	keep := max(n-utf8.RuneCountInString(sfx), 0)
	// characters as a range loop counts them (an invalid byte is one)
	cut, valid := skipChars(s, 0, keep)
	if end, _ := skipChars(s, cut, n-keep); end >= len(s) {
		return s // at most n characters
	}
	if !valid {
		return string([]rune(s[:cut])) + sfx // invalid bytes become U+FFFD
	}
	return s[:cut] + sfx
}

// skipChars returns the byte offset n characters after offset i in s (or
// len(s)), and whether the bytes skipped are valid UTF-8; an invalid byte
// counts as one character, as in a range loop. ASCII runs are skipped eight
// bytes at a time.
func skipChars(s string, i, n int) (int, bool) {
	valid := true
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only: one load per word
	for n > 0 && i < len(s) {
		if n >= 8 && i+8 <= len(s) {
			hi := binary.LittleEndian.Uint64(b[i:]) & 0x8080808080808080
			if hi == 0 {
				i, n = i+8, n-8
				continue
			}
			// the ASCII bytes before the first non-ASCII one
			k := bits.TrailingZeros64(hi) / 8
			i, n = i+k, n-k
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				valid = false
			}
			i += size
		}
		n--
	}
	return i, valid
}

func formatLoopMetadata(c call) (any, error) {
	a, err := c.args("past_loops", "max_loops")
	if err != nil {
		return nil, err
	}
	return loopMetadataText(a[0], a[1]), nil
}

// loopMetadataText is OrKa's format_loop_metadata: one line per loop of the last
// max_loops (default 5), "Loop i: score=…, status=…".
func loopMetadataText(loops, maxLoops *exec.Value) string {
	if loops == nil || !truthy(loops) {
		return "No previous loops"
	}
	m := 5
	if given(maxLoops) {
		m = maxLoops.Integer()
	}
	items := toList(loops)
	// Python's items[-m:]
	start := -m
	if start < 0 {
		start = max(len(items)+start, 0)
	}
	start = min(start, len(items))
	var b strings.Builder
	for i, loop := range items[start:] {
		if i > 0 {
			b.WriteByte('\n')
		}
		score, ok := mapGet(loop, "score")
		if !ok {
			score = "N/A"
		}
		status, ok := mapGet(loop, "status")
		if !ok {
			status = "completed"
		}
		fmt.Fprintf(&b, "Loop %d: score=%s, status=%s", i+1, pyStr(score), pyStr(status))
	}
	return b.String()
}

func toJSONString(c call) (any, error) {
	a, err := c.args("obj")
	if err != nil {
		return nil, err
	}
	var v any
	if a[0] != nil {
		v = a[0]
	}
	return pyJSON(v, jsonPython, 0)
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return true
	}
	return false
}
