//go:build race

package cognition

// raceDetector reports a test binary built with -race, whose
// instrumentation makes regexp2's single-goroutine matching ~60× slower.
const raceDetector = true
