package main

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// --checkpoint-ttl sets the TTL of the run's checkpoint key (default 7 days);
// a non-positive value is a usage error.
func TestCheckpointTTLFlag(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", persistWorkflow)
	keys, err := memory.NewKeyspace(memory.DefaultPrefix, memory.DefaultNamespace)
	require.NoError(t, err)

	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, memory.DefaultCheckpointTTL},
		{[]string{"--checkpoint-ttl", "90m"}, 90 * time.Minute},
	} {
		id := fmt.Sprintf("ttl-%d", tc.want)
		code, _, errs := runCLI(t, append([]string{"run", wf, "x", "--redis", srv.URL(), "--run-id", id}, tc.args...)...)
		require.Equal(t, 0, code, errs)
		key, err := keys.Key(memory.KindCheckpoint, id)
		require.NoError(t, err)
		got := pttl(t, srv.Addr(), key)
		assert.True(t, got > tc.want-time.Minute && got <= tc.want, "PTTL %v, want about %v", got, tc.want)
	}

	code, _, errs := runCLI(t, "run", wf, "x", "--checkpoint-ttl", "-1h")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--checkpoint-ttl must be positive")
}

// pttl asks redis-server for key's TTL over a raw connection.
func pttl(t *testing.T, addr, key string) time.Duration {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "*2\r\n$4\r\nPTTL\r\n$%d\r\n%s\r\n", len(key), key)
	require.NoError(t, err)
	line, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	ms, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, ":")), 10, 64)
	require.NoError(t, err, line)
	return time.Duration(ms) * time.Millisecond
}
