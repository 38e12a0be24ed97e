//go:build !race

package cognition

// raceDetector reports a test binary built with -race.
const raceDetector = false
