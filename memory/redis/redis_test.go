package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/cogloop/cogloop/memory/storetest"
)

func newStore(t testing.TB, url string, opts Options) *Store {
	t.Helper()
	s, err := New(context.Background(), url, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func entry(run string, i int) memory.Entry {
	return memory.Entry{RunID: run, LoopPath: "loop", Iteration: i, Data: []byte(fmt.Sprintf(`{"loop_number":%d}`, i))}
}

func iterations(t *testing.T, s memory.Store, loop string) []int {
	t.Helper()
	got, err := s.History(context.Background(), loop, 0)
	require.NoError(t, err)
	its := []int{}
	for _, e := range got {
		its = append(its, e.Iteration)
	}
	return its
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	storetest.Run(t, func(t *testing.T, opts memory.Options) memory.Store {
		s, err := New(context.Background(), srv.URL(), Options{Options: opts})
		require.NoError(t, err)
		return s
	})
}

// TestKeysOnServer checks the exact keys a store creates, escaping included.
func TestKeysOnServer(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s := newStore(t, srv.URL(), Options{Options: memory.Options{Prefix: "app", Namespace: "prod"}})
	require.NoError(t, s.Append(ctx, "a:b *", entry("r", 1)))
	require.NoError(t, s.SaveCheckpoint(ctx, "run 1", memory.Checkpoint{Digest: "d", State: map[string][]byte{"a:b *": []byte(`{}`)}}))
	require.NoError(t, s.Remember(ctx, "ep:isodic", memory.Memory{Content: "x"}))
	keys, err := s.client.Keys(ctx, "*").Result()
	require.NoError(t, err)
	slices.Sort(keys)
	assert.Equal(t, []string{
		"app:prod:loop:a%3Ab%20%2A:past_loop_ids",
		"app:prod:loop:a%3Ab%20%2A:past_loops",
		"app:prod:mem:ep%3Aisodic:created",
		"app:prod:mem:ep%3Aisodic:expires",
		"app:prod:mem:ep%3Aisodic:memories",
		"app:prod:run:run%201:checkpoint",
	}, keys)
	fields, err := s.client.HKeys(ctx, "app:prod:run:run%201:checkpoint").Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"digest", "updated_at", "state:a:b *"}, fields)
}

func TestServerTTLs(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	pttl := func(s *Store, key string) time.Duration {
		t.Helper()
		d, err := s.client.PTTL(ctx, key).Result()
		require.NoError(t, err)
		return d
	}

	s := newStore(t, srv.URL(), Options{Options: memory.Options{Namespace: "ttl", HistoryTTL: time.Hour, CheckpointTTL: 2 * time.Hour}})
	require.NoError(t, s.Append(ctx, "l", entry("r", 1)))
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d"}))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "soon", ExpiresAt: time.Now().Add(time.Minute)}))
	loopKeys, err := s.keys.LoopKeys("l")
	require.NoError(t, err)
	for _, k := range loopKeys {
		d := pttl(s, k)
		assert.True(t, d > 59*time.Minute && d <= time.Hour, "%s PTTL %v, want about 1h", k, d)
	}
	cpKey, err := s.keys.Key(memory.KindCheckpoint, "r")
	require.NoError(t, err)
	d := pttl(s, cpKey)
	assert.True(t, d > 119*time.Minute && d <= 2*time.Hour, "checkpoint PTTL %v, want about 2h", d)
	memKeys, err := s.keys.MemoryKeys("ns")
	require.NoError(t, err)
	for _, k := range memKeys {
		d := pttl(s, k)
		assert.True(t, d > 0 && d <= time.Minute+time.Second, "%s PTTL %v, want the memory's minute", k, d)
	}
	// A memory that never expires makes the namespace keys persistent.
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "forever"}))
	for _, k := range memKeys {
		assert.Equal(t, time.Duration(-1), pttl(s, k), "%s", k)
	}

	// An entry's TTL (a loop's history_ttl) overrides the store's.
	short := entry("r", 2)
	short.TTL = 10 * time.Minute
	require.NoError(t, s.Append(ctx, "l", short))
	for _, k := range loopKeys {
		d := pttl(s, k)
		assert.True(t, d > 9*time.Minute && d <= 10*time.Minute, "%s PTTL %v, want about 10m", k, d)
	}

	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", TTL: 10 * time.Minute}))
	d = pttl(s, cpKey)
	assert.True(t, d > 9*time.Minute && d <= 10*time.Minute, "checkpoint PTTL %v, want the save's 10m", d)

	// Defaults: history never expires, checkpoints after 7 days.
	def := newStore(t, srv.URL(), Options{Options: memory.Options{Namespace: "defaults"}})
	require.NoError(t, def.Append(ctx, "l", entry("r", 1)))
	require.NoError(t, def.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d"}))
	loopKeys, err = def.keys.LoopKeys("l")
	require.NoError(t, err)
	for _, k := range loopKeys {
		assert.Equal(t, time.Duration(-1), pttl(def, k), "%s", k)
	}
	cpKey, err = def.keys.Key(memory.KindCheckpoint, "r")
	require.NoError(t, err)
	d = pttl(def, cpKey)
	assert.True(t, d > memory.DefaultCheckpointTTL-time.Minute && d <= memory.DefaultCheckpointTTL, "checkpoint PTTL %v", d)
}

// TestRoundTrips pins one request per operation once the scripts are
// loaded; the benchmark reports the same number.
func TestRoundTrips(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s := newStore(t, srv.URL(), Options{})
	// First calls load the scripts (EVALSHA, then EVAL on NOSCRIPT).
	require.NoError(t, s.Append(ctx, "l", entry("warm", 1)))
	require.NoError(t, s.SaveCheckpoint(ctx, "warm", memory.Checkpoint{Digest: "d"}))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "warm"}))
	for _, tc := range []struct {
		name string
		op   func() error
	}{
		{"append", func() error { return s.Append(ctx, "l", entry("r", 1)) }},
		{"append replayed", func() error { return s.Append(ctx, "l", entry("r", 1)) }},
		{"history", func() error { _, err := s.History(ctx, "l", 20); return err }},
		{"clear history", func() error { return s.ClearHistory(ctx, "other") }},
		{"save checkpoint", func() error {
			return s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: map[string][]byte{"a": []byte("1"), "b": []byte("2")}})
		}},
		{"load checkpoint", func() error { _, _, err := s.LoadCheckpoint(ctx, "r"); return err }},
		{"remember", func() error { return s.Remember(ctx, "ns", memory.Memory{Content: "fact"}) }},
		{"recall", func() error { _, err := s.Recall(ctx, "ns", memory.Query{Text: "fact"}); return err }},
	} {
		before := s.RoundTrips()
		require.NoError(t, tc.op(), tc.name)
		assert.Equal(t, uint64(1), s.RoundTrips()-before, "%s: round trips", tc.name)
	}
}

// lossyProxy forwards TCP between a client and Redis and, when armed, lets
// the next EVALSHA reach the server but drops its reply and closes the
// connection: the write happened, the client cannot know. With hang set it
// swallows every reply and keeps connections open: a server that hangs.
type lossyProxy struct {
	ln      net.Listener
	target  string
	armed   atomic.Bool
	dropped atomic.Int32
	hang    atomic.Bool

	mu    sync.Mutex
	conns []net.Conn
}

func startLossyProxy(t *testing.T, target string) *lossyProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &lossyProxy{ln: ln, target: target}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { p.serve(c) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		wg.Wait()
	})
	return p
}

func (p *lossyProxy) URL() string { return "redis://" + p.ln.Addr().String() + "/0" }

func (p *lossyProxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, cs...)
}

func (p *lossyProxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.track(client, server)
	var dropReply atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				if dropReply.Load() {
					p.dropped.Add(1)
					_ = client.Close()
					_ = server.Close()
					return
				}
				if p.hang.Load() {
					continue
				}
				if _, err := client.Write(buf[:n]); err != nil {
					_ = server.Close()
					return
				}
			}
			if err != nil {
				_ = client.Close()
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			if bytes.Contains(bytes.ToLower(buf[:n]), []byte("evalsha")) && p.armed.CompareAndSwap(true, false) {
				dropReply.Store(true)
			}
			if _, err := server.Write(buf[:n]); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	_ = server.Close()
	<-done
}

// TestLostReplyIsRetriedWithoutDuplicate: the server runs the append, the
// reply is lost, the store retries the same call, and the history still
// has the entry once.
func TestLostReplyIsRetriedWithoutDuplicate(t *testing.T) {
	srv := redistest.Start(t)
	proxy := startLossyProxy(t, srv.Addr())
	ctx := context.Background()
	var retries []string
	s := newStore(t, proxy.URL(), Options{OnRetry: func(op string, attempt int, err error) {
		retries = append(retries, fmt.Sprintf("%s #%d: %v", op, attempt, err))
	}})
	require.NoError(t, s.Append(ctx, "l", entry("r", 1)), "loads the script, so the next call is a bare EVALSHA")

	proxy.armed.Store(true)
	require.NoError(t, s.Append(ctx, "l", entry("r", 2)))
	require.Equal(t, int32(1), proxy.dropped.Load(), "the proxy dropped a reply")
	require.Len(t, retries, 1, "the store retried once: %v", retries)
	assert.Contains(t, retries[0], `append history loop "l" run "r" iteration 2`)

	direct := newStore(t, srv.URL(), Options{})
	assert.Equal(t, []int{1, 2}, iterations(t, direct, "l"), "iteration 2 is stored once")
}

// TestConcurrentClients: two clients (as two processes would) append to
// one loop at once; every entry lands once.
func TestConcurrentClients(t *testing.T) {
	srv := redistest.Start(t)
	storetest.ConcurrentAppends(t, []memory.Store{newStore(t, srv.URL(), Options{}), newStore(t, srv.URL(), Options{})}, 50)
}

// TestHelperProcessRun is not a test: TestCheckpointAcrossProcesses runs
// the test binary with it as a run that completes three iterations and dies
// without closing anything.
func TestHelperProcessRun(t *testing.T) {
	url := os.Getenv("COGLOOP_REDIS_HELPER_URL")
	if url == "" {
		t.Skip("helper process for TestCheckpointAcrossProcesses")
	}
	ctx := context.Background()
	s, err := New(ctx, url, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i := 1; i <= 3; i++ {
		err := errors.Join(
			s.Append(ctx, "improve", entry("run-x", i)),
			s.SaveCheckpoint(ctx, "run-x", memory.Checkpoint{Digest: "wf-1", State: map[string][]byte{
				"improve": fmt.Appendf(nil, `{"iteration":%d}`, i),
			}}),
		)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(42) // dies mid-run
}

func TestCheckpointAcrossProcesses(t *testing.T) {
	srv := redistest.Start(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessRun$", "-test.count=1")
	cmd.Env = append(os.Environ(), "COGLOOP_REDIS_HELPER_URL="+srv.URL())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "helper output: %s", out)
	require.Equal(t, 42, exit.ExitCode(), "helper output: %s", out)

	ctx := context.Background()
	s := newStore(t, srv.URL(), Options{})
	cp, ok, err := s.LoadCheckpoint(ctx, "run-x")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "wf-1", cp.Digest)
	assert.JSONEq(t, `{"iteration":3}`, string(cp.State["improve"]))
	assert.Equal(t, []int{1, 2, 3}, iterations(t, s, "improve"))
}

func requireUnavailable(t *testing.T, err error, addr string, op string) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, memory.ErrUnavailable)
	assert.Contains(t, err.Error(), addr, "the error names the server")
	assert.Contains(t, err.Error(), op, "the error names the operation")
}

// TestServerStoppedBetweenOperations: while the server is down every
// operation fails cleanly after its retries; after a restart the same
// writes succeed and the data is exactly what was written.
func TestServerStoppedBetweenOperations(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	attempts := 0
	// go-redis stops dialling for up to a second once a pool has seen
	// PoolSize failed dials (its default pool on a one-CPU machine is 10);
	// this test makes 12 and then expects an immediate reconnect.
	s := newStore(t, srv.URL(), Options{Retries: 2, MinBackoff: time.Millisecond, PoolSize: 64,
		OnRetry: func(string, int, error) { attempts++ }})
	require.NoError(t, s.Append(ctx, "l", entry("r", 1)))
	require.NoError(t, s.Append(ctx, "l", entry("r", 2)))

	srv.Stop()
	err := s.Append(ctx, "l", entry("r", 3))
	requireUnavailable(t, err, srv.Addr(), `append history loop "l" run "r" iteration 3`)
	assert.Contains(t, err.Error(), "3 attempts")
	assert.Equal(t, 2, attempts, "two retries")
	_, err = s.History(ctx, "l", 0)
	requireUnavailable(t, err, srv.Addr(), `load history loop "l"`)
	requireUnavailable(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d"}), srv.Addr(), `save checkpoint run "r"`)
	requireUnavailable(t, s.Remember(ctx, "ns", memory.Memory{Content: "x"}), srv.Addr(), `remember in namespace "ns"`)

	srv.Restart()
	require.NoError(t, s.Append(ctx, "l", entry("r", 3)), "the caller repeats the write it was told failed")
	require.NoError(t, s.Append(ctx, "l", entry("r", 2)), "a replay of an older write")
	assert.Equal(t, []int{1, 2, 3}, iterations(t, s, "l"))
}

// TestServerBackDuringRetries: the server comes back while a write is
// being retried; the write succeeds on a later attempt.
func TestServerBackDuringRetries(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	var seen []int
	s := newStore(t, srv.URL(), Options{OpTimeout: -1, OnRetry: func(op string, attempt int, err error) {
		seen = append(seen, attempt)
		if attempt == 1 {
			srv.Restart()
		}
	}})
	require.NoError(t, s.Append(ctx, "l", entry("r", 1)))
	srv.Stop()
	require.NoError(t, s.Append(ctx, "l", entry("r", 2)))
	assert.Equal(t, 1, seen[0])
	assert.Equal(t, []int{1, 2}, iterations(t, s, "l"))
}

// TestServerKilled: a crash loses what the server had not saved, but what
// remains is whole and writable.
func TestServerKilled(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s := newStore(t, srv.URL(), Options{Retries: -1})
	require.NoError(t, s.Append(ctx, "l", entry("r", 1)))
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: map[string][]byte{"l": []byte(`{"iteration":1}`)}}))
	srv.Stop() // saves
	srv.Restart()
	require.NoError(t, s.Append(ctx, "l", entry("r", 2)))
	srv.Kill() // iteration 2 was never saved to disk
	requireUnavailable(t, s.Append(ctx, "l", entry("r", 3)), srv.Addr(), "append history")
	srv.Restart()
	assert.Equal(t, []int{1}, iterations(t, s, "l"))
	cp, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	require.True(t, ok)
	assert.JSONEq(t, `{"iteration":1}`, string(cp.State["l"]))
	require.NoError(t, s.Append(ctx, "l", entry("r", 2)))
	require.NoError(t, s.Append(ctx, "l", entry("r", 3)))
	assert.Equal(t, []int{1, 2, 3}, iterations(t, s, "l"))
}

// TestHungServer: a server that accepts but never answers is reported as
// unavailable when the operation budget runs out, not after every retry.
func TestHungServer(t *testing.T) {
	srv := redistest.Start(t)
	proxy := startLossyProxy(t, srv.Addr())
	ctx := context.Background()
	const budget = 300 * time.Millisecond
	s := newStore(t, proxy.URL(), Options{IOTimeout: 100 * time.Millisecond, Retries: 100, OpTimeout: budget})
	require.NoError(t, s.Append(ctx, "l", entry("r", 1)))
	proxy.hang.Store(true)
	err := s.Append(ctx, "l", entry("r", 2))
	requireUnavailable(t, err, proxy.ln.Addr().String(), `append history loop "l" run "r" iteration 2`)
	assert.Contains(t, err.Error(), "no answer within "+budget.String())

	_, err = New(ctx, proxy.URL(), Options{IOTimeout: 100 * time.Millisecond})
	require.Error(t, err)
	assert.ErrorIs(t, err, memory.ErrUnavailable)
	assert.Contains(t, err.Error(), "connect")

	proxy.hang.Store(false)
	direct := newStore(t, srv.URL(), Options{})
	its := iterations(t, direct, "l")
	assert.Subset(t, []int{1, 2}, its, "iteration 2 may or may not have reached the server")
	assert.Equal(t, 1, its[0])
	require.NoError(t, direct.Append(ctx, "l", entry("r", 2)), "the caller repeats the failed write")
	assert.Equal(t, []int{1, 2}, iterations(t, direct, "l"))
}

func TestUnreachableServer(t *testing.T) {
	addr := nettest.ClosedAddr(t)
	_, err := New(context.Background(), "redis://:s3cr3t-pw@"+addr+"/0", Options{})
	require.Error(t, err)
	assert.ErrorIs(t, err, memory.ErrUnavailable)
	assert.Contains(t, err.Error(), addr)
	assert.Contains(t, err.Error(), "connect")
	assert.NotContains(t, err.Error(), "s3cr3t-pw")
}

func TestPassword(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "right-pw")
	s := newStore(t, "redis://:right-pw@"+srv.Addr()+"/0", Options{})
	require.NoError(t, s.Append(context.Background(), "l", entry("r", 1)))

	_, err := New(context.Background(), "redis://:s3cr3t-pw@"+srv.Addr()+"/0", Options{})
	require.Error(t, err)
	assert.NotErrorIs(t, err, memory.ErrUnavailable, "a refused login is not an outage: %v", err)
	assert.Contains(t, err.Error(), srv.Addr())
	assert.NotContains(t, err.Error(), "s3cr3t-pw")
}

func TestBadURLs(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"redis://user:s3cr3t-pw@host:notaport/0", "invalid port"},
		{"redis://user:s3cr3t-pw@host:6379/notadb", "invalid database"},
		{"http://user:s3cr3t-pw@host:6379", "scheme"},
		{"redis://us er:s3cr3t-pw@ho st/0\x7f", ""},
	} {
		_, err := New(context.Background(), tc.url, Options{})
		require.Error(t, err, tc.url)
		assert.NotContains(t, err.Error(), "s3cr3t-pw", "%q", tc.url)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := New(context.Background(), "redis://127.0.0.1:1/0", Options{Options: memory.Options{Namespace: "a:b"}})
	assert.ErrorIs(t, err, memory.ErrInvalid)
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"redis://user:pw@host:1/0":    "redis://xxxxx@host:1/0",
		"redis://:pw@host:1/0":        "redis://xxxxx@host:1/0",
		"redis://pw@host:1/0":         "redis://xxxxx@host:1/0",
		"redis://host:1/0":            "redis://host:1/0",
		"redis://u:p w@h st:1/0\x7f":  "redis://xxxxx@h st:1/0\x7f",
		"redis://u:p@w@h:x/0\x7f":     "redis://xxxxx@h:x/0\x7f",
		"u:pw@host":                   "xxxxx@host",
		"redis://h/0?x=a@b\x7f":       "redis://h/0?x=a@b\x7f",
		"unix:///run/redis.sock?db=1": "unix:///run/redis.sock?db=1",
	} {
		got := redact(in)
		assert.Equal(t, want, got, "%q", in)
		assert.NotContains(t, got, "pw@")
	}
}

func TestOperationErrorsNameTheServer(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s := newStore(t, srv.URL(), Options{})
	key, err := s.keys.Key(memory.KindPastLoops, "l")
	require.NoError(t, err)
	require.NoError(t, s.client.Set(ctx, key, "not a list", 0).Err())
	_, err = s.History(ctx, "l", 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), srv.Addr())
	assert.Contains(t, err.Error(), `load history loop "l"`)
	assert.Contains(t, err.Error(), "WRONGTYPE")
	assert.NotErrorIs(t, err, memory.ErrUnavailable)

	ctx, cancel := context.WithCancel(ctx)
	cancel()
	err = s.Append(ctx, "l2", entry("r", 1))
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, strings.HasPrefix(err.Error(), "redis "+srv.Addr()+": "), err.Error())
}
