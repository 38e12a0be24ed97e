//go:build linux

package act_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestCommandTimeoutKillsProcessGroup runs a shell that starts a grandchild
// which would sleep for ever and then waits for it: at the timeout the whole
// group is killed, so the grandchild is gone too (not left orphaned).
func TestCommandTimeoutKillsProcessGroup(t *testing.T) {
	a := build(t, "type: command\ncommand: [sh, -c, 'sleep 100000 & echo $!; wait']\ntimeout: 200ms\n")
	out, err := call(t, a, nil)
	require.ErrorContains(t, err, "did not finish within the timeout of 200ms: its process group was killed")
	pid, perr := strconv.Atoi(strings.TrimSpace(out.Fields["stdout"].(string)))
	require.NoError(t, perr, "the grandchild's pid: %q", out.Fields["stdout"])

	// A pidfd becomes readable when its process has exited; ESRCH means it
	// has exited and been reaped already.
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	require.NoError(t, err)
	defer func() { _ = unix.Close(fd) }()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 30_000) // a bound so a surviving child fails instead of hanging
	require.NoError(t, err)
	require.Equal(t, 1, n, "the grandchild %d still runs after its group was killed", pid)
}
