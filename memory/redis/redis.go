package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/cogloop/cogloop/internal/backoff"
	"github.com/cogloop/cogloop/internal/plainjson"
	"github.com/cogloop/cogloop/memory"
)

// Defaults for [Options].
const (
	DefaultDialTimeout = 500 * time.Millisecond
	DefaultIOTimeout   = time.Second
	DefaultRetries     = 4
	DefaultMinBackoff  = 100 * time.Millisecond
	DefaultMaxBackoff  = time.Second
	DefaultOpTimeout   = 2 * time.Second
)

// Options configure a Redis store: the store semantics shared with every
// store, plus the connection. Zero values mean the defaults.
type Options struct {
	memory.Options

	// DialTimeout bounds one connection attempt; default 500ms. [New] makes
	// one attempt, so an unreachable server fails New within about this.
	DialTimeout time.Duration
	// IOTimeout bounds each socket read and write; default 1s. A context
	// deadline, when earlier, wins.
	IOTimeout time.Duration
	// Retries is how many times a failed operation is tried again after a
	// network error, a timeout or a server that is loading or busy; default
	// 4 (waits of 0.1+0.2+0.4+0.8 s, which outlast go-redis's one-second
	// pause in dialling after many failed dials), negative for none.
	// go-redis's own retries are off, so this is the only retry loop.
	Retries int
	// OpTimeout bounds one operation, all its tries and waits included, so
	// that an unreachable or hung server is reported within it; default 2s,
	// negative for no bound beyond the caller's context.
	OpTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait between tries, which doubles
	// from MinBackoff (default 100ms) up to MaxBackoff (default 1s).
	MinBackoff, MaxBackoff time.Duration
	// PoolSize is the connection pool size; default go-redis's
	// (10 per GOMAXPROCS).
	PoolSize int
	// OnRetry, when set, is called before each retry with the operation,
	// the attempt that failed (1-based) and its error. It runs on the
	// caller's goroutine and delays the retry until it returns.
	OnRetry func(op string, attempt int, err error)
}

// Store is a [memory.Store] on a Redis server (version 7 or later).
type Store struct {
	client *goredis.Client
	addr   string
	opts   Options
	keys   memory.Keyspace
	trips  atomic.Uint64
	closed atomic.Bool
	// borrowed is true for a caller's client ([NewWithClient]): Close
	// leaves it open.
	borrowed bool
}

var _ memory.Store = (*Store)(nil)

// New connects to the server at rawURL (redis://[user:password@]host:port/db,
// rediss:// for TLS, unix:///path) and checks it with one PING. Errors name
// the server address, never the password; when the server cannot be reached
// they wrap [memory.ErrUnavailable] and come after one dial attempt.
// Timeouts, retries and the pool come from opts; such parameters in the
// URL's query are overridden.
func New(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	opts, keys, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	ro, err := parseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("new redis store: %w", err)
	}
	opts = withDefaults(opts)
	ro.DialTimeout = opts.DialTimeout
	ro.DialerRetries = 1
	ro.ReadTimeout = opts.IOTimeout
	ro.WriteTimeout = opts.IOTimeout
	ro.PoolTimeout = opts.DialTimeout + opts.IOTimeout
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries = -1 // our loop retries; see Store.do
	ro.DisableIdentity = true
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if opts.PoolSize > 0 {
		ro.PoolSize = opts.PoolSize
	}
	s := &Store{client: goredis.NewClient(ro), addr: ro.Addr, opts: opts, keys: keys}
	s.client.AddHook(tripCounter{&s.trips})

	pingCtx, cancel := context.WithTimeout(ctx, opts.DialTimeout+opts.IOTimeout)
	defer cancel()
	if err := s.client.Ping(pingCtx).Err(); err != nil {
		_ = s.client.Close()
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v: %w", opts.DialTimeout+opts.IOTimeout, err)
		}
		unavailable := ctx.Err() == nil && (transient(err) || errors.Is(err, context.DeadlineExceeded))
		return nil, s.fail("connect", 1, err, unavailable)
	}
	return s, nil
}

// NewWithClient is a store on a client the caller owns and configured
// (its pool, TLS, timeouts, hooks): the store adds no hook to it and [Store.Close]
// leaves it open. It checks the server with one PING, bounded by
// opts.DialTimeout+opts.IOTimeout. Of opts, the store semantics (prefix,
// namespace, caps, TTLs) and the store's retry loop (Retries, OpTimeout,
// backoff) apply; the connection fields (DialTimeout for the check aside,
// IOTimeout, PoolSize) are the client's business. go-redis's own retries
// (MaxRetries) run inside each of the store's tries: set them to -1 on the
// client to leave the retrying to the store. [Store.RoundTrips] counts
// nothing for such a store.
func NewWithClient(ctx context.Context, client *goredis.Client, opts Options) (*Store, error) {
	if client == nil {
		return nil, errors.New("new redis store: the client is nil")
	}
	opts, keys, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	opts = withDefaults(opts)
	s := &Store{client: client, addr: client.Options().Addr, opts: opts, keys: keys, borrowed: true}
	pingCtx, cancel := context.WithTimeout(ctx, opts.DialTimeout+opts.IOTimeout)
	defer cancel()
	if err := client.Ping(pingCtx).Err(); err != nil {
		unavailable := ctx.Err() == nil && (transient(err) || errors.Is(err, context.DeadlineExceeded))
		return nil, s.fail("connect", 1, err, unavailable)
	}
	return s, nil
}

// resolve checks the store semantics of opts and builds its keyspace.
func resolve(opts Options) (Options, memory.Keyspace, error) {
	mopts, err := opts.Options.Resolve()
	if err != nil {
		return opts, memory.Keyspace{}, fmt.Errorf("new redis store: %w", err)
	}
	opts.Options = mopts
	keys, err := memory.NewKeyspace(mopts.Prefix, mopts.Namespace)
	if err != nil {
		return opts, memory.Keyspace{}, fmt.Errorf("new redis store: %w", err)
	}
	return opts, keys, nil
}

func withDefaults(o Options) Options {
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.IOTimeout <= 0 {
		o.IOTimeout = DefaultIOTimeout
	}
	switch {
	case o.Retries < 0:
		o.Retries = 0
	case o.Retries == 0:
		o.Retries = DefaultRetries
	}
	switch {
	case o.OpTimeout < 0:
		o.OpTimeout = 0
	case o.OpTimeout == 0:
		o.OpTimeout = DefaultOpTimeout
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	o.MaxBackoff = max(o.MaxBackoff, o.MinBackoff)
	return o
}

// parseURL parses a Redis URL without ever echoing its password.
func parseURL(raw string) (*goredis.Options, error) {
	if _, err := url.Parse(raw); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error prints the whole URL, password included
		}
		return nil, fmt.Errorf("parse redis url %q: %w", redact(raw), err)
	}
	ro, err := goredis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("parse redis url %q: %w", redact(raw), err)
	}
	return ro, nil
}

// redact replaces the userinfo of a URL, parseable or not, with "xxxxx"
// (the whole of it: a lone user name is often a password).
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Opaque == "" {
		if u.User != nil {
			u.User = url.User("xxxxx")
		}
		return u.String()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "xxxxx@" + raw[i+1:]
		}
		return raw
	}
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	if i := strings.LastIndex(host, "@"); i >= 0 {
		rest = "xxxxx@" + rest[i+1:]
	}
	return scheme + "://" + rest
}

// Addr is the server address the store talks to (host:port or socket path).
func (s *Store) Addr() string { return s.addr }

// RoundTrips counts the requests the store has sent to the server: one per
// command or pipeline, retries included. It exists for benchmarks and
// tests; it is safe to read concurrently.
func (s *Store) RoundTrips() uint64 { return s.trips.Load() }

// Close closes the connections (a client given to [NewWithClient] stays
// open: its owner closes it). Later operations fail with
// [memory.ErrClosed]; closing again does nothing.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) || s.borrowed {
		return nil
	}
	if err := s.client.Close(); err != nil {
		return fmt.Errorf("redis %s: close: %w", s.addr, err)
	}
	return nil
}

// do runs fn, retrying transient failures with backoff within the
// operation budget, and names the server and op in any error. Every
// operation is idempotent, so a retry after a lost reply (the server did the
// work, we did not hear) is safe.
func (s *Store) do(ctx context.Context, op string, fn func(context.Context) error) error {
	if s.closed.Load() {
		return fmt.Errorf("redis %s: %s: %w", s.addr, op, memory.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis %s: %s: %w", s.addr, op, err)
	}
	opCtx, cancel := ctx, context.CancelFunc(func() {})
	if s.opts.OpTimeout > 0 {
		opCtx, cancel = context.WithTimeout(ctx, s.opts.OpTimeout)
	}
	defer cancel()
	// The project's one retry schedule (internal/backoff, as agents/retry's):
	// exponential from MinBackoff to MaxBackoff, no jitter, so the default
	// waits add up to 1.5 s, past go-redis's one-second dial pause.
	pol := backoff.Policy{Count: s.opts.Retries, Exponential: true, Interval: s.opts.MinBackoff, MaxInterval: s.opts.MaxBackoff}
	for attempt := 1; ; attempt++ {
		err := s.try(ctx, opCtx, fn)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, goredis.ErrClosed) || s.closed.Load():
			return fmt.Errorf("redis %s: %s: %w: %w", s.addr, op, memory.ErrClosed, err)
		case ctx.Err() != nil:
			return fmt.Errorf("redis %s: %s: %w (after %d attempts, last: %w)", s.addr, op, ctx.Err(), attempt, err)
		case opCtx.Err() != nil:
			return s.fail(op, attempt, fmt.Errorf("no answer within %v: %w", s.opts.OpTimeout, err), true)
		case !transient(err):
			return s.fail(op, attempt, err, false)
		case attempt > pol.Count:
			return s.fail(op, attempt, err, true)
		}
		if s.opts.OnRetry != nil {
			s.opts.OnRetry(op, attempt, err)
		}
		if backoff.Sleep(opCtx, pol.Wait(attempt, nil)) != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("redis %s: %s: %w (after %d attempts, last: %w)", s.addr, op, ctx.Err(), attempt, err)
			}
			return s.fail(op, attempt, fmt.Errorf("no answer within %v: %w", s.opts.OpTimeout, err), true)
		}
	}
}

// try runs fn(opCtx), but returns as soon as the caller's ctx is cancelled:
// go-redis notices a cancellation only at its next socket deadline (up to
// IOTimeout), so a Ctrl-C during a stalled write would wait that long. The
// abandoned call ends by itself within IOTimeout and its connection is
// dropped.
func (s *Store) try(ctx, opCtx context.Context, fn func(context.Context) error) error {
	if ctx.Done() == nil {
		return fn(opCtx)
	}
	done := make(chan error, 1)
	go func() { done <- fn(opCtx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) fail(op string, attempts int, err error, unavailable bool) error {
	if !unavailable {
		return fmt.Errorf("redis %s: %s: %w", s.addr, op, err)
	}
	tries := "1 attempt"
	if attempts != 1 {
		tries = strconv.Itoa(attempts) + " attempts"
	}
	return fmt.Errorf("redis %s: %s: %w (%s): %w", s.addr, op, memory.ErrUnavailable, tries, err)
}

// transient reports whether err may go away on its own: network errors,
// timeouts, a closed connection, a full pool, a server that is loading its
// data, busy with a script or otherwise asking to try again.
func transient(err error) bool {
	var rerr goredis.Error
	if errors.As(err, &rerr) {
		return goredis.IsLoadingError(err) || goredis.IsTryAgainError(err) ||
			goredis.IsMasterDownError(err) || goredis.IsClusterDownError(err) ||
			goredis.IsMaxClientsError(err) || strings.HasPrefix(err.Error(), "BUSY ")
	}
	var nerr net.Error
	return errors.As(err, &nerr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, goredis.ErrPoolTimeout)
}

// tripCounter counts the commands and pipelines the client sends.
type tripCounter struct{ n *atomic.Uint64 }

func (h tripCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h tripCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h tripCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// envelope is a history entry as stored in the past_loops list.
type envelope struct {
	RunID     string          `json:"run_id"`
	LoopPath  string          `json:"loop_path"`
	Iteration int             `json:"iteration"`
	At        time.Time       `json:"at"`
	Data      json.RawMessage `json:"data"`
}

// entryID is the idempotency key of an entry: a JSON array, so that no
// choice of run id or loop path can make two identities alike.
func entryID(e memory.Entry) (string, error) {
	b, err := json.Marshal([]any{e.RunID, e.LoopPath, e.Iteration})
	return string(b), err
}

func ms(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return max(1, d.Milliseconds())
}

// Append implements [memory.History] with one script call: LPOS on the ids
// (LSET in place for a known identity), else RPUSH and LTRIM both lists to
// the cap; PEXPIRE.
func (s *Store) Append(ctx context.Context, loopID string, e memory.Entry) error {
	op := fmt.Sprintf("append history loop %q run %q iteration %d", loopID, e.RunID, e.Iteration)
	keys, err := s.keys.LoopKeys(loopID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := e.Validate(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if e.At.IsZero() {
		e.At = s.opts.Clock()
	}
	id, err := entryID(e)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	body, err := json.Marshal(envelope{RunID: e.RunID, LoopPath: e.LoopPath, Iteration: e.Iteration, At: e.At, Data: e.Data})
	if err != nil {
		return fmt.Errorf("%s: encode entry: %w", op, err)
	}
	// The arguments are fixed before the first try, so every retry sends the
	// identical script call.
	args := []any{id, body, s.opts.HistoryCap, ms(s.opts.AppendTTL(e))}
	return s.do(ctx, op, func(ctx context.Context) error {
		return appendScript.Run(ctx, s.client, keys, args...).Err()
	})
}

// History implements [memory.History] with one LRANGE.
func (s *Store) History(ctx context.Context, loopID string, limit int) ([]memory.Entry, error) {
	op := fmt.Sprintf("load history loop %q", loopID)
	key, err := s.keys.Key(memory.KindPastLoops, loopID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	start := int64(0)
	if limit > 0 {
		start = -int64(limit)
	}
	var raw []string
	err = s.do(ctx, op, func(ctx context.Context) error {
		var err error
		raw, err = s.client.LRange(ctx, key, start, -1).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]memory.Entry, 0, len(raw))
	for i, r := range raw {
		e, err := decodeEnvelope([]byte(r))
		if err != nil {
			return nil, fmt.Errorf("redis %s: %s: decode entry %d of %s: %w", s.addr, op, i, key, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// errOtherShape stops decodeEnvelope's fast path.
var errOtherShape = errors.New("not the envelope Append writes")

// decodeEnvelope reads an entry of the past_loops list. An envelope as
// Append writes it (exact keys, a string run id and loop path, a whole
// iteration) is read in one pass that keeps data as a slice of b; anything
// else goes through encoding/json, which decides as it always has. Each
// entry's data is read back by the loop on every run, so this is the hot
// path of a long persisted history (issue 18).
func decodeEnvelope(b []byte) (memory.Entry, error) {
	var e memory.Entry
	err := plainjson.Members(b, func(key string, v []byte) error {
		var ok bool
		switch key {
		case "run_id":
			e.RunID, ok = plainString(v)
		case "loop_path":
			e.LoopPath, ok = plainString(v)
		case "iteration":
			var n any
			n, _ = plainjson.Decode(v)
			e.Iteration, ok = n.(int)
		case "at":
			ok = e.At.UnmarshalJSON(v) == nil
		case "data":
			e.Data, ok = v, true
		}
		if !ok {
			return errOtherShape
		}
		return nil
	})
	if err == nil {
		return e, nil
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return memory.Entry{}, err
	}
	return memory.Entry{RunID: env.RunID, LoopPath: env.LoopPath, Iteration: env.Iteration, At: env.At, Data: env.Data}, nil
}

// plainString reads a JSON string.
func plainString(v []byte) (string, bool) {
	s, err := plainjson.Decode(v)
	str, ok := s.(string)
	return str, ok && err == nil
}

// OrKaPastLoops implements [memory.OrKaHistory] with one GET of OrKa's key
// past_loops:<loop id>, which lives outside the store's prefix.
func (s *Store) OrKaPastLoops(ctx context.Context, loopID string) ([]byte, bool, error) {
	op := fmt.Sprintf("read OrKa's history of loop %q", loopID)
	if loopID == "" || len(loopID) > 512 {
		return nil, false, fmt.Errorf("%s: loop id must have 1 to 512 bytes", op)
	}
	key := memory.OrKaPastLoopsKey(loopID)
	var data []byte
	found := true
	err := s.do(ctx, op, func(ctx context.Context) error {
		n, err := s.client.StrLen(ctx, key).Result()
		if err != nil {
			return err
		}
		if n > memory.MaxOrKaHistoryBytes {
			return fmt.Errorf("%s holds %d bytes, more than %d", key, n, memory.MaxOrKaHistoryBytes)
		}
		data, err = s.client.Get(ctx, key).Bytes()
		if errors.Is(err, goredis.Nil) {
			found, err = false, nil
		}
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return data, found, nil
}

var _ memory.OrKaHistory = (*Store)(nil)

// ClearHistory implements [memory.History] with one DEL of exactly the
// loop's two keys.
func (s *Store) ClearHistory(ctx context.Context, loopID string) error {
	op := fmt.Sprintf("clear history loop %q", loopID)
	keys, err := s.keys.LoopKeys(loopID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return s.do(ctx, op, func(ctx context.Context) error {
		return s.client.Del(ctx, keys...).Err()
	})
}

// Checkpoint hash fields: two of metadata, one per loop path.
const (
	fieldDigest    = "digest"
	fieldUpdatedAt = "updated_at"
	statePrefix    = "state:"
)

// SaveCheckpoint implements [memory.Checkpoints] with one script call.
func (s *Store) SaveCheckpoint(ctx context.Context, runID string, cp memory.Checkpoint) error {
	op := fmt.Sprintf("save checkpoint run %q", runID)
	key, err := s.keys.Key(memory.KindCheckpoint, runID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := cp.Validate(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	lease, err := s.keys.Key(memory.KindLease, runID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	args := []any{cp.Digest, s.opts.Clock().Format(time.RFC3339Nano), ms(s.opts.SaveTTL(cp)), cp.Holder}
	for path, st := range cp.State {
		args = append(args, statePrefix+path, st)
	}
	var res []any
	err = s.do(ctx, op, func(ctx context.Context) error {
		var err error
		res, err = saveCheckpointScript.Run(ctx, s.client, []string{key, lease}, args...).Slice()
		return err
	})
	if err != nil {
		return err
	}
	if len(res) == 2 && res[0] == int64(2) {
		return fmt.Errorf("redis %s: %s: %v holds the lease, not %s: %w", s.addr, op, res[1], cp.Holder, memory.ErrLeaseLost)
	}
	if len(res) == 2 && res[0] == int64(0) {
		return fmt.Errorf("redis %s: %s: stored digest %q, saving %q: %w", s.addr, op, res[1], cp.Digest, memory.ErrDigestMismatch)
	}
	return nil
}

// LoadCheckpoint implements [memory.Checkpoints] with one HGETALL.
func (s *Store) LoadCheckpoint(ctx context.Context, runID string) (memory.Checkpoint, bool, error) {
	op := fmt.Sprintf("load checkpoint run %q", runID)
	key, err := s.keys.Key(memory.KindCheckpoint, runID)
	if err != nil {
		return memory.Checkpoint{}, false, fmt.Errorf("%s: %w", op, err)
	}
	var fields map[string]string
	err = s.do(ctx, op, func(ctx context.Context) error {
		var err error
		fields, err = s.client.HGetAll(ctx, key).Result()
		return err
	})
	if err != nil {
		return memory.Checkpoint{}, false, err
	}
	digest, ok := fields[fieldDigest]
	if !ok {
		return memory.Checkpoint{}, false, nil
	}
	cp := memory.Checkpoint{Digest: digest, State: make(map[string][]byte, len(fields))}
	if at, ok := fields[fieldUpdatedAt]; ok {
		if cp.UpdatedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return memory.Checkpoint{}, false, fmt.Errorf("redis %s: %s: decode %s of %s: %w", s.addr, op, fieldUpdatedAt, key, err)
		}
	}
	for f, v := range fields {
		if path, ok := strings.CutPrefix(f, statePrefix); ok {
			cp.State[path] = []byte(v)
		}
	}
	return cp, true, nil
}

// DeleteCheckpoint implements [memory.Checkpoints] with one DEL.
func (s *Store) DeleteCheckpoint(ctx context.Context, runID string) error {
	op := fmt.Sprintf("delete checkpoint run %q", runID)
	key, err := s.keys.Key(memory.KindCheckpoint, runID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return s.do(ctx, op, func(ctx context.Context) error {
		return s.client.Del(ctx, key).Err()
	})
}

// record is a memory as stored in the memories hash.
type record struct {
	ID        string            `json:"id"`
	Content   string            `json:"content"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Vector    []float32         `json:"vector,omitempty"`
	CreatedAt time.Time         `json:"created_at"`
	ExpiresAt *time.Time        `json:"expires_at,omitempty"`
}

// Remember implements [memory.Memories] with one script call.
func (s *Store) Remember(ctx context.Context, namespace string, m memory.Memory) error {
	op := fmt.Sprintf("remember in namespace %q", namespace)
	keys, err := s.keys.MemoryKeys(namespace)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	now := s.opts.Clock()
	m, err = memory.PrepareMemory(m, now, s.opts.EffectiveMemoryTTL())
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if m.Expired(now) {
		return nil
	}
	rec := record{ID: m.ID, Content: m.Content, Metadata: m.Metadata, Vector: m.Vector, CreatedAt: m.CreatedAt}
	expires := "+inf"
	if !m.ExpiresAt.IsZero() {
		rec.ExpiresAt = &m.ExpiresAt
		// Rounded up and "now" rounded down: the server drops a memory only
		// when it has expired by the Go rule too.
		expires = strconv.FormatInt(ceilMillis(m.ExpiresAt), 10)
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("%s: encode memory: %w", op, err)
	}
	args := []any{m.ID, body, m.CreatedAt.UnixMilli(), expires, now.UnixMilli(), s.opts.MemoryCap}
	return s.do(ctx, op, func(ctx context.Context) error {
		return rememberScript.Run(ctx, s.client, keys, args...).Err()
	})
}

func ceilMillis(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Sub(time.UnixMilli(ms)) > 0 {
		ms++
	}
	return ms
}

// Recall implements [memory.Memories] with one HGETALL; ranking is
// [memory.Rank], in the client.
func (s *Store) Recall(ctx context.Context, namespace string, q memory.Query) ([]memory.Match, error) {
	op := fmt.Sprintf("recall from namespace %q", namespace)
	key, err := s.keys.Key(memory.KindMemories, namespace)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var raw map[string]string
	err = s.do(ctx, op, func(ctx context.Context) error {
		var err error
		raw, err = s.client.HGetAll(ctx, key).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	mems := make([]memory.Memory, 0, len(raw))
	for id, r := range raw {
		var rec record
		if err := json.Unmarshal([]byte(r), &rec); err != nil {
			return nil, fmt.Errorf("redis %s: %s: decode memory %q of %s: %w", s.addr, op, id, key, err)
		}
		m := memory.Memory{ID: rec.ID, Content: rec.Content, Metadata: rec.Metadata, Vector: rec.Vector, CreatedAt: rec.CreatedAt}
		if rec.ExpiresAt != nil {
			m.ExpiresAt = *rec.ExpiresAt
		}
		mems = append(mems, m)
	}
	return memory.Rank(q, s.opts.Clock(), mems), nil
}

// Patient returns the options of a store in namespace ns on a server known
// to be healthy but on a loaded machine (tests, CI): 10s to connect, 30s per
// read or write, a minute per operation, so that only a real fault ends an
// operation early. The defaults (500ms, 1s, 2s) suit a production worker that
// must notice a dead server soon.
func Patient(ns string) Options {
	return Options{Options: memory.Options{Namespace: ns}, DialTimeout: 10 * time.Second,
		IOTimeout: 30 * time.Second, OpTimeout: time.Minute}
}

var _ memory.States = (*Store)(nil)

// LoadState implements [memory.States] with one HGET.
func (s *Store) LoadState(ctx context.Context, runID, path string) ([]byte, bool, error) {
	op := fmt.Sprintf("load state %q of run %q", path, runID)
	key, err := s.keys.Key(memory.KindCheckpoint, runID)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", op, err)
	}
	var v []byte
	found := true
	err = s.do(ctx, op, func(ctx context.Context) error {
		var err error
		v, err = s.client.HGet(ctx, key, statePrefix+path).Bytes()
		if errors.Is(err, goredis.Nil) {
			found, err = false, nil
		}
		return err
	})
	if err != nil || !found {
		return nil, false, err
	}
	return v, true, nil
}

// SwapState implements [memory.States] with one script call.
func (s *Store) SwapState(ctx context.Context, runID, path string, old, new []byte) (bool, error) {
	op := fmt.Sprintf("swap state %q of run %q", path, runID)
	key, err := s.keys.Key(memory.KindCheckpoint, runID)
	if err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	flag := func(b []byte) string {
		if b == nil {
			return "0"
		}
		return "1"
	}
	args := []any{statePrefix + path, flag(old), string(old), flag(new), string(new), s.opts.Clock().Format(time.RFC3339Nano)}
	var res int64
	err = s.do(ctx, op, func(ctx context.Context) error {
		var err error
		res, err = swapStateScript.Run(ctx, s.client, []string{key}, args...).Int64()
		return err
	})
	return res == 1, err
}
