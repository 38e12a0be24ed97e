package cognition

import (
	"fmt"
	"testing"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stoppedRuns makes the first n runs of the engine end as regexp2 ends a run
// past its MatchTimeout, each after cpuPerRun of thread CPU time (on the
// test's CPU clock); later runs are real. It returns the wall timeouts the
// runs were given.
func stoppedRuns(t *testing.T, cpu *time.Duration, n int, cpuPerRun time.Duration) *[]time.Duration {
	var timeouts []time.Duration
	findRunes = func(re *regexp2.Regexp, r []rune, pos int) (*regexp2.Match, error) {
		timeouts = append(timeouts, re.MatchTimeout)
		if len(timeouts) <= n {
			*cpu += cpuPerRun
			return nil, fmt.Errorf("match timeout after %v on input `%s`", re.MatchTimeout, string(r))
		}
		return re.FindRunesMatchStartingAt(r, pos)
	}
	t.Cleanup(func() { findRunes = (*regexp2.Regexp).FindRunesMatchStartingAt })
	return &timeouts
}

// backref needs regexp2 (Go's regexp has no backreferences), so every scan
// goes through findRunes.
const backref = `(\w+) \1`

func firstUnder(t *testing.T, budget time.Duration) (string, bool, []Warning) {
	t.Helper()
	p, err := CompileOptions(backref, PatternOptions{Limits: Limits{MatchTimeout: 100 * time.Millisecond}})
	require.NoError(t, err)
	sc := &Scan{Budget: NewCPUBudget(budget)}
	text := newText("a", "", "say bye bye now", 1<<10)
	start, end, ok := sc.First(p, text)
	return string(text.Runes()[start:end]), ok, sc.Warnings()
}

// A run that regexp2 stopped while its thread had used less CPU time than
// MatchTimeout (it waited for a CPU) runs again with a longer wall timeout:
// the match is found, as on an idle machine, without a warning.
func TestMatchStoppedByLoadRunsAgain(t *testing.T) {
	cpu := fakeCPU(t)
	timeouts := stoppedRuns(t, cpu, 2, 10*time.Millisecond)
	got, ok, warns := firstUnder(t, time.Second)
	assert.True(t, ok)
	assert.Equal(t, "bye", got)
	assert.Empty(t, warns)
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, *timeouts)
}

// A run that used its whole MatchTimeout in CPU time timed out, whatever the
// load: it does not run again, and the scan warns.
func TestMatchThatUsedItsTimeoutTimesOut(t *testing.T) {
	cpu := fakeCPU(t)
	timeouts := stoppedRuns(t, cpu, 1, 100*time.Millisecond)
	_, ok, warns := firstUnder(t, time.Second)
	assert.False(t, ok)
	assert.Len(t, *timeouts, 1)
	require.Len(t, warns, 1)
	assert.Equal(t, CodeRegexTimeout, warns[0].Code)
	assert.NotContains(t, warns[0].Message, "load")
}

// A thread that never gets a CPU gives up after maxReruns runs again, with a
// warning that says the load stopped the match.
func TestMatchStoppedByLoadEveryTimeWarns(t *testing.T) {
	cpu := fakeCPU(t)
	timeouts := stoppedRuns(t, cpu, 100, time.Millisecond)
	_, ok, warns := firstUnder(t, time.Second)
	assert.False(t, ok)
	assert.Len(t, *timeouts, maxReruns+1)
	assert.Equal(t, 100*time.Millisecond<<maxReruns, (*timeouts)[maxReruns])
	require.Len(t, warns, 1)
	assert.Equal(t, CodeRegexTimeout, warns[0].Code)
	assert.Contains(t, warns[0].Message, "the machine's load stopped it 7 times")
}

// The runs again spend the pass's CPU budget like any run: when it is
// spent, the scan stops with the budget's warning.
func TestMatchRunsAgainWithinTheBudget(t *testing.T) {
	cpu := fakeCPU(t)
	timeouts := stoppedRuns(t, cpu, 100, 90*time.Millisecond)
	_, ok, warns := firstUnder(t, 150*time.Millisecond)
	assert.False(t, ok)
	assert.Len(t, *timeouts, 2, "the second run ends at 180ms of CPU time, past the budget")
	require.Len(t, warns, 1)
	assert.Equal(t, CodeRegexBudget, warns[0].Code)
}

// Without a CPU budget (a wall-clock one), a stopped run is a timeout, as
// before.
func TestMatchStoppedOnWallBudgetTimesOut(t *testing.T) {
	timeouts := stoppedRuns(t, new(time.Duration), 1, 0)
	p, err := CompileOptions(backref, PatternOptions{})
	require.NoError(t, err)
	sc := &Scan{Budget: NewBudget(time.Second)}
	_, _, ok := sc.First(p, newText("a", "", "say bye bye now", 1<<10))
	assert.False(t, ok)
	assert.Len(t, *timeouts, 1)
	require.Len(t, sc.Warnings(), 1)
	assert.Equal(t, CodeRegexTimeout, sc.Warnings()[0].Code)
}
