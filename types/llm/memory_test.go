package llm_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/types/llm"
)

// envReplyChild names the URL the child process calls (see TestReplyChild).
const envReplyChild = "COGLOOP_TEST_REPLY_CHILD_URL"

// maxGrowth is how much more than a child that reads a small reply a child
// refused a hostile one at the default 4 MiB limit may reach at its peak: a
// small multiple of the limit (the race detector's shadow memory included).
// Without the limit the bomb inflates to 256 MiB and the plain body is 100 MB,
// each held at least twice.
const maxGrowth = 96 << 20

// A reply that would inflate past the limit is stopped at the limit, before it
// is held in memory: a gzip bomb (256 MiB of spaces inside JSON, 270 KB on the
// wire) and a plain 100 MB body each fail the call in a child process whose
// peak RSS stays within maxGrowth of a child that read a small reply.
func TestHostileReplyMemoryIsBounded(t *testing.T) {
	bomb := gzipBomb(t, 256<<20)
	t.Logf("gzip bomb: %d bytes on the wire, 256 MiB inflated", len(bomb))
	child := func(t *testing.T, serve func(w http.ResponseWriter)) (string, int64) {
		t.Helper()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			serve(w)
		}))
		defer srv.Close()
		cmd := exec.Command(os.Args[0], "-test.run=^TestReplyChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envReplyChild+"="+srv.URL)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		require.True(t, ok)
		return strings.ReplaceAll(string(out), srv.URL, "URL"), ru.Maxrss << 10 // kilobytes on Linux
	}
	out, base := child(t, func(w http.ResponseWriter) { agenttest.WriteChatReply(w, "a small reply", 1, 1) })
	require.Contains(t, out, "CHILD OK")
	t.Logf("child peak RSS reading a small reply: %.1f MiB", float64(base)/(1<<20))

	cases := []struct {
		name  string
		serve func(w http.ResponseWriter)
	}{
		{"gzip bomb", func(w http.ResponseWriter) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(bomb)
		}},
		{"100 MB body", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"`)
			chunk := []byte(strings.Repeat("x", 1<<20))
			for range 100 {
				if _, err := w.Write(chunk); err != nil {
					return // the client stopped reading
				}
			}
			_, _ = io.WriteString(w, `"},"finish_reason":"stop"}]}`)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, peak := child(t, tc.serve)
			t.Logf("child peak RSS: %.1f MiB", float64(peak)/(1<<20))
			assert.Contains(t, out, "CHILD ERROR: call openai_compatible model \"m\" at URL/v1: the reply is larger than max_reply_bytes (4 MiB = 4194304 bytes) of agent \"writer\"")
			assert.Less(t, peak-base, int64(maxGrowth), "peak RSS of a call refused at 4 MiB, beyond that of a small reply")
		})
	}
}

// TestReplyChild is the child of TestHostileReplyMemoryIsBounded: it calls the
// server named by its environment with the default limit and prints the error.
func TestReplyChild(t *testing.T) {
	url := os.Getenv(envReplyChild)
	if url == "" {
		t.Skip("the child process of TestHostileReplyMemoryIsBounded")
	}
	m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: url, Model: "m"})
	require.NoError(t, err)
	if _, err = m.Generate(context.Background(), agents.Request{Agent: "writer", Prompt: "hi"}); err != nil {
		fmt.Println("CHILD ERROR:", err)
		return
	}
	fmt.Println("CHILD OK")
}

// gzipBomb is a chat completion whose body is n spaces (n a multiple of
// 1 MiB) inside the JSON object, gzip-compressed: one compressed MiB of spaces
// repeated as gzip members (a gzip stream may hold several; readers
// concatenate them).
func gzipBomb(t *testing.T, n int) []byte {
	t.Helper()
	member := func(s []byte) []byte {
		var b bytes.Buffer
		zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
		require.NoError(t, err)
		_, err = zw.Write(s)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		return b.Bytes()
	}
	var b bytes.Buffer
	b.Write(member([]byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]`)))
	spaces := member(bytes.Repeat([]byte(" "), 1<<20))
	for range n >> 20 {
		b.Write(spaces)
	}
	b.Write(member([]byte("}")))
	return b.Bytes()
}
