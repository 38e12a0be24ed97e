package cognition

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCPU replaces the thread CPU clock with one the test moves.
func fakeCPU(t *testing.T) *time.Duration {
	var cpu time.Duration
	threadCPU = func() (time.Duration, bool) { return cpu, true }
	t.Cleanup(func() { threadCPU = osThreadCPU })
	return &cpu
}

// A CPU budget is spent by CPU time only: it runs out exactly when the
// thread's CPU clock passes its limit, however much wall time went by.
func TestCPUBudgetIsSpentByCPUTimeOnly(t *testing.T) {
	cpu := fakeCPU(t)
	sc := &Scan{Budget: NewCPUBudget(500 * time.Millisecond)}
	require.True(t, sc.cpuClock())
	require.True(t, sc.allowAt(sc.now()), "the first run starts the clock")
	*cpu += 400 * time.Millisecond
	assert.True(t, sc.allowAt(sc.now()))
	assert.Equal(t, 100*time.Millisecond, sc.left(sc.now()))
	*cpu += 200 * time.Millisecond
	assert.False(t, sc.allowAt(sc.now()))
	require.Len(t, sc.Warnings(), 1)
	assert.Equal(t, CodeRegexBudget, sc.Warnings()[0].Code)
}

// With the CPU clock standing still (a thread that waited for a CPU the
// whole time), every lesson is found under a budget a wall clock would have
// spent at once.
func TestCPUBudgetOutcomeDoesNotDependOnWaiting(t *testing.T) {
	fakeCPU(t)
	e := newExtractor(t, ExtractConfig{Patterns: ExtractPatterns{
		Insights: []string{`insight:\s*(.+?)(?:\n|$)`}, Mistakes: []string{`mistake:\s*(.+?)(?:\n|$)`}}})
	results := []Result{{ID: "a", Value: "insight: the first lesson of the pass"}, {ID: "b", Value: "mistake: the second lesson of the pass"}}

	got := e.ExtractWithin(results, NewCPUBudget(time.Nanosecond))
	assert.Equal(t, "the first lesson of the pass", got.Insights)
	assert.Equal(t, "the second lesson of the pass", got.Mistakes)
	assert.Empty(t, got.Warnings)

	wall := e.ExtractWithin(results, NewBudget(time.Nanosecond))
	assert.NotEmpty(t, wall.Warnings, "a wall-clock budget of 1ns is spent after the first run")
}

// The thread CPU clock is readable here (Linux) and does not go back.
func TestThreadCPUClock(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is read on Linux only; elsewhere budgets are wall time")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := osThreadCPU()
	require.True(t, ok)
	x := 0
	for i := range 1_000_000 {
		x += i % 7
	}
	b, ok := osThreadCPU()
	require.True(t, ok)
	assert.GreaterOrEqual(t, b, a)
	assert.NotZero(t, x)
}
