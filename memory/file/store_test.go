package file_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/file"
	"github.com/cogloop/cogloop/memory/storetest"
)

// The file store laid over the in-memory one passes the whole conformance
// suite: its checkpoint and lease parts run on the files.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	storetest.Run(t, func(t *testing.T, opts memory.Options) memory.Store {
		base, err := memory.NewInMemory(opts)
		require.NoError(t, err)
		fs, err := file.New(dir, opts)
		require.NoError(t, err)
		return fs.Over(base)
	})
}

// One 0600 file per run in a 0700 directory, and nothing else left behind
// but the lock file.
func TestFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "checkpoints")
	s, err := file.New(dir, memory.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.SaveCheckpoint(ctx, "r/1:x", memory.Checkpoint{Digest: "d", State: map[string][]byte{"loop:a": []byte(`{"loops":1}`)}}))
	require.NoError(t, s.SaveCheckpoint(ctx, "r/1:x", memory.Checkpoint{Digest: "d", State: map[string][]byte{"loop:b": []byte("not json")}}))
	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []string
	for _, n := range names {
		files = append(files, n.Name())
		info, err := n.Info()
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), n.Name())
	}
	assert.ElementsMatch(t, []string{".lock", "cogloop+default+r%2F1%3Ax.json"}, files)
	cp, ok, err := s.LoadCheckpoint(ctx, "r/1:x")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, map[string][]byte{"loop:a": []byte(`{"loops":1}`), "loop:b": []byte("not json")}, cp.State)
}

// An unwritable directory is refused when the store opens, not at the first save.
func TestUnwritableDirectory(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	_, err := file.New(filepath.Join(blocker, "checkpoints"), memory.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "new file store")
}

// envChild makes the test binary a child process that saves paths.
const envChild = "COGLOOP_FILE_STORE_CHILD"

// Two processes saving paths of one run at once both land every path: each
// save's read-merge-write holds the directory's lock (without it, one
// process's write would drop paths the other had just added).
func TestTwoProcessesSaveOneRun(t *testing.T) {
	if who := os.Getenv(envChild); who != "" {
		s, err := file.New(os.Getenv(envChild+"_DIR"), memory.Options{})
		require.NoError(t, err)
		for i := range 60 {
			p := fmt.Sprintf("loop:%s#pass:%d", who, i)
			require.NoError(t, s.SaveCheckpoint(context.Background(), "shared", memory.Checkpoint{Digest: "d", State: map[string][]byte{p: []byte(`{}`)}}))
		}
		return
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, who := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTwoProcessesSaveOneRun$")
		cmd.Env = append(os.Environ(), envChild+"="+who, envChild+"_DIR="+dir)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		require.NoError(t, cmd.Wait())
	}
	s, err := file.New(dir, memory.Options{})
	require.NoError(t, err)
	cp, ok, err := s.LoadCheckpoint(context.Background(), "shared")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Len(t, cp.State, 120, "every path of both processes")
}

// A checkpoint past its TTL loads as absent, and Sweep removes its file.
func TestExpiryAndSweep(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	s, err := file.New(dir, memory.Options{Now: func() time.Time { return now }})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.SaveCheckpoint(ctx, "old", memory.Checkpoint{Digest: "d", TTL: time.Minute}))
	require.NoError(t, s.SaveCheckpoint(ctx, "new", memory.Checkpoint{Digest: "d", TTL: time.Hour}))
	now = now.Add(2 * time.Minute)
	n, err := s.Sweep(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, filepath.Join(dir, "cogloop+default+old.json"))
	_, ok, err := s.LoadCheckpoint(ctx, "new")
	require.NoError(t, err)
	assert.True(t, ok)
	now = now.Add(time.Hour)
	_, ok, err = s.LoadCheckpoint(ctx, "new")
	require.NoError(t, err)
	assert.False(t, ok, "expired on load")
	assert.NoFileExists(t, filepath.Join(dir, "cogloop+default+new.json"), "and removed then")
}
