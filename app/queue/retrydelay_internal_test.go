package queue

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/assert"
)

// TestRetryDelayFollowsTheSharedSchedule: asynq's wait before retrying a
// run is the backoff schedule's (1 s doubling to 5 min, ±20 %), and a run
// handed back by a draining or dead worker goes again at once.
func TestRetryDelayFollowsTheSharedSchedule(t *testing.T) {
	fail := errors.New("store unavailable")
	for n, base := range map[int]time.Duration{0: time.Second, 1: 2 * time.Second, 3: 8 * time.Second, 20: 5 * time.Minute} {
		d := retryDelay(n, fail, nil)
		assert.GreaterOrEqual(t, d, base*8/10, "retry %d", n+1)
		assert.LessOrEqual(t, d, min(base*12/10, 5*time.Minute), "retry %d", n+1)
	}
	assert.Zero(t, retryDelay(4, fmt.Errorf("pass 2: %w", drainedError{}), nil))
	assert.Zero(t, retryDelay(4, asynq.ErrLeaseExpired, nil))
}
