package loopnode

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents/load"
)

// DefaultTimeout bounds every loop in time unless timeout: says otherwise
// (OrKa's documented default; timeout: none opts out).
const DefaultTimeout = 300 * time.Second

// readTimeout reads timeout:: a duration, DefaultTimeout when absent, and
// none (or 0) for no time bound, with a load note.
func readTimeout(c *load.Config) time.Duration {
	if !c.Recording() && c.Has("timeout") {
		v := strings.ToLower(strings.TrimSpace(c.String("timeout", "")))
		if v == "none" || v == "0" || v == "0s" {
			c.Problems().Notef(c.ValuePos("timeout"), "%s: timeout: %s: the loop has no time bound (the default is %s); only max_loops and its conditions end it", c.What(), v, DefaultTimeout)
			return 0
		}
	}
	return c.Duration("timeout", DefaultTimeout)
}

// The stops fail_on: can make failures.
var failOnReasons = []string{StopMaxLoops, StopTimeout}

// readFailOn reads fail_on: [max_loops, timeout]: stop reasons that fail the
// run (exit 1) instead of ending the loop normally (OrKa: neither).
func readFailOn(c *load.Config) []string {
	list := c.Strings("fail_on")
	for _, r := range list {
		if !slices.Contains(failOnReasons, r) {
			c.Errorf("fail_on", "fail_on lists stop reasons that fail the run: %s, not %q", strings.Join(failOnReasons, ", "), r)
		}
	}
	return list
}

// failedBy says why the loop's stop fails the run under fail_on, or "".
func (n *Node) failedBy(reason string) string {
	if !slices.Contains(n.failOn, reason) {
		return ""
	}
	what := fmt.Sprintf("it ran %d passes (max_loops) without meeting a stop condition", n.maxLoops)
	if reason == StopTimeout {
		what = fmt.Sprintf("it ran over its timeout %s", n.timeout)
	}
	return fmt.Sprintf("loop %q stopped with stop_reason %s: %s, and fail_on lists %s", n.id, reason, what, reason)
}

// noteExits notes a loop whose only early exit is OrKa's default score
// patterns (any "SCORE:" or percentage in a pass's output): an answer that
// happens to contain "90%" ends it. The note names the exits the loop has.
func (n *Node) noteExits(c *load.Config) {
	if c.Recording() || c.Has("score_threshold") || n.stop != nil || scorePatternGiven(c) {
		return
	}
	exits := []string{fmt.Sprintf("max_loops %d", n.maxLoops)}
	if n.timeout > 0 {
		exits = append(exits, "timeout "+n.timeout.String())
	}
	exits = append(exits, fmt.Sprintf("a score >= %g read by the default patterns", n.threshold))
	c.Problems().Notef(c.Pos(), "%s: no score pattern: OrKa's defaults read any 'SCORE:' or percentage in a pass's output, so an answer such as \"90%%\" can end the loop; give score_threshold, a score pattern or stop_when to say how it ends (its exits: %s)",
		c.What(), strings.Join(exits, ", "))
}

func scorePatternGiven(c *load.Config) bool {
	for _, k := range []string{"score_extraction_pattern", "score_extraction_key", "score_extraction_config", "scoring", "score_from"} {
		if c.Has(k) {
			return true
		}
	}
	return false
}
