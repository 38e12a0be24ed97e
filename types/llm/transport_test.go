package llm_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/types/llm"
)

// countingListener counts the TCP connections a server accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// Two waves of 64 calls at once from models built without a client (the
// shared transport; two models, as two agents): the second wave reuses the
// first wave's connections, so the server accepts 64 connections in all, not
// 128 (the 16 idle connections kept per host before meant 48 new ones). Each
// wave is held at the server until all its calls have arrived, so all 64 are
// in flight together.
func TestCallsAtOnceReuseTheirConnections(t *testing.T) {
	const wave = 64
	var mu sync.Mutex
	arrived, release := 0, make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		ch := release
		if arrived == wave {
			close(release)
			arrived, release = 0, make(chan struct{})
		}
		mu.Unlock()
		<-ch
		agenttest.WriteChatReply(w, "ok", 1, 1)
	}))
	ln := &countingListener{Listener: srv.Listener}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()

	var models [2]*llm.Model
	for i := range models {
		m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "m"})
		require.NoError(t, err)
		models[i] = m
	}
	for range 2 {
		var g errgroup.Group
		for i := range wave {
			g.Go(func() error {
				_, err := models[i%2].Generate(context.Background(), agents.Request{Agent: "a", Prompt: "hi"})
				return err
			})
		}
		require.NoError(t, g.Wait())
	}
	assert.Equal(t, int64(wave), ln.n.Load(), "the second wave opened no connection")
}

// Streamed calls one after another keep one connection: langchaingo's client
// closes the body at [DONE], before the end of the chunked response, and
// net/http drops a connection closed early; the stream's reader reads on to
// the end first. The server sends [DONE] on its own, so the end of the body
// comes after it (TestCloseReadsToTheEndAfterDone is the same without a
// network).
func TestStreamedCallsKeepTheirConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		openAISSE(w, []string{"one ", "two"}, 1, 2)
		w.(http.Flusher).Flush()
	}))
	ln := &countingListener{Listener: srv.Listener}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "m"})
	require.NoError(t, err)
	for range 5 {
		rep, err := m.Generate(context.Background(), agents.Request{Agent: "a", Prompt: "hi", OnDelta: func(string) {}})
		require.NoError(t, err)
		require.Equal(t, "one two", rep.Text)
	}
	assert.Equal(t, int64(1), ln.n.Load(), "5 streamed calls over one connection")
}

// A server that sends [DONE] and keeps the response open does not hold the
// call: the reader gives up on the end of the body (the connection is then
// closed, as before) and the call returns its reply.
func TestAStreamLeftOpenAfterDoneEndsTheCall(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		openAISSE(w, []string{"one ", "two"}, 1, 2)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the client's side goes away
	}))
	defer srv.Close()
	m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "m"})
	require.NoError(t, err)
	rep, err := m.Generate(context.Background(), agents.Request{Agent: "a", Prompt: "hi", OnDelta: func(string) {}})
	require.NoError(t, err)
	assert.Equal(t, "one two", rep.Text)
}
