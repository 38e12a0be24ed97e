//go:build !race

package cogloop_test

// raceDetector reports a test binary built with -race.
const raceDetector = false
