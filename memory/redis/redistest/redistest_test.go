package redistest

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB whose Skipf and Fatalf end the goroutine and
// record how, so Start's missing-binary rule can be observed.
type recorder struct {
	*testing.T
	outcome string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.outcome = "skip: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.outcome = "fatal: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func startWithoutBinary(t *testing.T, ci string) string {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("REDIS_SERVER", "")
	t.Setenv("CI", ci)
	r := &recorder{T: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(r)
		r.outcome = "started"
	}()
	<-done
	return r.outcome
}

func TestMissingBinary(t *testing.T) {
	assert.Regexp(t, `^skip: redis-server not found`, startWithoutBinary(t, ""))
	assert.Regexp(t, `^skip: `, startWithoutBinary(t, "false"))
	assert.Regexp(t, `^fatal: redis-server not found on PATH and CI=true`, startWithoutBinary(t, "true"))
}

func TestStopRestartKeepsData(t *testing.T) {
	s := Start(t)
	reply, err := s.command("SET", "k", "v")
	require.NoError(t, err)
	require.Equal(t, "+OK", reply)
	s.Stop()
	s.Stop() // harmless
	_, err = s.command("PING")
	require.Error(t, err, "stopped")
	s.Restart()
	reply, err = s.command("GET", "k")
	require.NoError(t, err)
	assert.Equal(t, "$1", reply, "SHUTDOWN SAVE kept the value")
	_, err = s.command("SET", "k2", "v")
	require.NoError(t, err)
	s.Kill()
	s.Restart()
	reply, err = s.command("EXISTS", "k2")
	require.NoError(t, err)
	assert.Equal(t, ":0", reply, "a kill loses unsaved writes")
}

func TestAOFSurvivesKill(t *testing.T) {
	s := Start(t, "--appendonly", "yes", "--appendfsync", "always")
	_, err := s.command("SET", "k", "v")
	require.NoError(t, err)
	s.Kill()
	s.Restart()
	reply, err := s.command("EXISTS", "k")
	require.NoError(t, err)
	assert.Equal(t, ":1", reply, "with appendfsync always an acknowledged write survives kill -9")
}

func TestNetInputBytesAndPTTL(t *testing.T) {
	s := Start(t)
	before, err := s.NetInputBytes()
	require.NoError(t, err)
	value := string(make([]byte, 10_000))
	_, err = s.command("SET", "k", value, "PX", "60000")
	require.NoError(t, err)
	after, err := s.NetInputBytes()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, after-before, int64(10_000), "the SET's bytes are counted")
	assert.Less(t, after-before, int64(10_200))

	d, err := s.PTTL("k")
	require.NoError(t, err)
	assert.True(t, d > 59*time.Second && d <= time.Minute, "PTTL %v", d)
	d, err = s.PTTL("missing")
	require.NoError(t, err)
	assert.Equal(t, -2*time.Millisecond, d)
}
