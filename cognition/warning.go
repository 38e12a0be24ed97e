package cognition

// Warning codes of the regex engine's warnings, which an [Extraction] or a
// score (package cognition/scorer, which has its own codes too) carries. They
// are short and stable: the loop node emits them as the code of its warning
// events.
const (
	CodeRegexBudget  = "regex_budget"  // the regex time budget was spent: the remaining scans were skipped
	CodeRegexTimeout = "regex_timeout" // one scan ran out of its MatchTimeout
	CodeRegexFailure = "regex_failure" // the regex engine failed
	CodeTextCut      = "text_cut"      // a text was scanned only up to MaxInput
	CodeTooMany      = "too_many_matches"
)

// Warning is something a Score or Extract call could not do as asked. Message
// names the agent and field, and quotes model output only cut to 80 characters.
type Warning struct {
	Code    string
	Message string
}

func (w Warning) String() string { return w.Message }

// Messages returns the messages of ws.
func Messages(ws []Warning) []string {
	if len(ws) == 0 {
		return nil
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}
