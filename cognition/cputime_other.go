//go:build !linux

package cognition

import "time"

// osThreadCPU reports that this system's thread CPU time is not read: budgets
// fall back to wall time.
func osThreadCPU() (time.Duration, bool) { return 0, false }
