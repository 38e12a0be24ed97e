package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/cogloop/cogloop"
)

// Client submits runs and reads their status. It is safe for concurrent use.
type Client struct {
	client *asynq.Client
	insp   *asynq.Inspector
}

// redisOpt parses a redis://, rediss://, redis-socket:// or
// redis-sentinel:// URL.
func redisOpt(url string) (asynq.RedisConnOpt, error) {
	if url == "" {
		return nil, errors.New("no Redis URL: pass --redis URL or set REDIS_URL")
	}
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w", err)
	}
	return opt, nil
}

// NewClient connects to the Redis at url.
func NewClient(url string) (*Client, error) {
	opt, err := redisOpt(url)
	if err != nil {
		return nil, err
	}
	return &Client{client: asynq.NewClient(opt), insp: asynq.NewInspector(opt)}, nil
}

// Close releases the connections.
func (c *Client) Close() error {
	return errors.Join(c.client.Close(), c.insp.Close())
}

// Option adjusts a submitted run.
type Option func(*submitOptions)

type submitOptions struct {
	runID, queue, namespace string
	strict                  bool
	cpTTL                   time.Duration
	maxRetry                int
	retention, timeout      time.Duration
	load                    []cogloop.LoadOption
}

// RunID names the run (default: a fresh cogloop.NewRunID()).
func RunID(id string) Option { return func(o *submitOptions) { o.runID = id } }

// Queue puts the run in queue q instead of [DefaultQueue].
func Queue(q string) Option { return func(o *submitOptions) { o.queue = q } }

// Namespace is the run's key namespace in the store (default "default").
func Namespace(ns string) Option { return func(o *submitOptions) { o.namespace = ns } }

// Strict runs with every warning an error.
func Strict() Option { return func(o *submitOptions) { o.strict = true } }

// CheckpointTTL expires the run's checkpoint after ttl without a save.
func CheckpointTTL(ttl time.Duration) Option { return func(o *submitOptions) { o.cpTTL = ttl } }

// MaxRetry is how often a transient failure is retried ([DefaultMaxRetry]).
func MaxRetry(n int) Option { return func(o *submitOptions) { o.maxRetry = n } }

// Retention keeps the finished run's record (and result) that long
// ([DefaultRetention]).
func Retention(d time.Duration) Option { return func(o *submitOptions) { o.retention = d } }

// Timeout bounds one attempt of the run ([DefaultTimeout]); a run cut by it
// is retried and resumes from its checkpoint.
func Timeout(d time.Duration) Option { return func(o *submitOptions) { o.timeout = d } }

// LoadOptions are used to check the workflow before it is submitted (a
// registry with custom agent types, presets, strict).
func LoadOptions(opts ...cogloop.LoadOption) Option {
	return func(o *submitOptions) { o.load = append(o.load, opts...) }
}

// newSubmitOptions applies opts to the defaults, with a fresh run id when
// none is given.
func newSubmitOptions(opts []Option) submitOptions {
	o := submitOptions{queue: DefaultQueue, maxRetry: DefaultMaxRetry, retention: DefaultRetention, timeout: DefaultTimeout}
	for _, fn := range opts {
		fn(&o)
	}
	if o.runID == "" {
		o.runID = cogloop.NewRunID()
	}
	return o
}

// Enqueue checks the workflow (a workflow with problems is not submitted:
// the error lists them with file:line:col) and submits one run of it on
// input (text, or any JSON value). It returns the run id. A run id that was
// submitted already, in any queue, gives an error wrapping [ErrDuplicate].
func Enqueue(ctx context.Context, c *Client, wf Workflow, input any, opts ...Option) (string, error) {
	o := newSubmitOptions(opts)
	if err := checkRunID(o.runID); err != nil {
		return "", err
	}
	if o.strict {
		o.load = append(o.load, cogloop.WithStrict())
	}
	loaded, err := cogloop.Parse(wf.data, wf.name, o.load...)
	if err != nil {
		return "", err
	}
	return submit(ctx, c, wf, loaded, input, o)
}

// EnqueueWorkflow submits one run of wf. A workflow loaded with
// cogloop.Load or cogloop.Parse travels as its YAML in the task payload (as
// with [Source]) and a worker loads it again: give the worker the same load
// options (its registry, providers, HTTP client), which are not part of the
// YAML. A workflow built in Go (cogloop.New) travels as its id and the
// input only: a worker builds it with the builder its
// [Options].Workflows holds under that id, and refuses the run when it has
// none. Options are [Enqueue]'s ([LoadOptions] and [Strict] aside, which
// were the caller's to give when loading wf).
func EnqueueWorkflow(ctx context.Context, c *Client, wf *cogloop.Workflow, input any, opts ...Option) (string, error) {
	o := newSubmitOptions(opts)
	if err := checkRunID(o.runID); err != nil {
		return "", err
	}
	name, data, ok := wf.Source()
	if !ok {
		return submitGo(ctx, c, wf.ID(), input, o)
	}
	return submit(ctx, c, Source(name, data), wf, input, o)
}

// submitGo enqueues a run of the Go-built workflow id.
func submitGo(ctx context.Context, c *Client, id string, input any, o submitOptions) (string, error) {
	if id == "" {
		return "", errors.New("the workflow has no id: a worker finds a Go-built workflow by its id (cogloop.New(id, agent))")
	}
	in, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("run %s: the input is not JSON-encodable: %w", o.runID, err)
	}
	return enqueue(ctx, c, payload{Version: goPayloadVersion, RunID: o.runID, Namespace: o.namespace, Go: id, Input: in,
		CheckpointTTL: o.cpTTL}, o)
}

// submit enqueues a run of wf (loaded as loaded) with options o.
func submit(ctx context.Context, c *Client, wf Workflow, loaded *cogloop.Workflow, input any, o submitOptions) (string, error) {
	if !wf.shared {
		if p, ok := plainKey(loaded); ok {
			return "", fmt.Errorf("%s: the workflow has an API key written in it, and its bytes would be stored in Redis; use api_key_env or the environment, or submit it as a shared file (--shared) so only its path is stored", p.Pos)
		}
	}
	in, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("run %s: the input is not JSON-encodable: %w", o.runID, err)
	}
	return enqueue(ctx, c, payload{Version: payloadVersion, RunID: o.runID, Namespace: o.namespace, Workflow: wf.ref(), Input: in,
		Strict: o.strict, CheckpointTTL: o.cpTTL}, o)
}

// enqueue submits the task of payload p with options o.
func enqueue(ctx context.Context, c *Client, p payload, o submitOptions) (string, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	if err := c.refuseElsewhere(o.runID, o.queue); err != nil {
		return "", err
	}
	task := asynq.NewTask(taskType, data, asynq.TaskID(o.runID), asynq.Queue(o.queue),
		asynq.MaxRetry(o.maxRetry), asynq.Retention(o.retention), asynq.Timeout(o.timeout))
	if _, err := c.client.EnqueueContext(ctx, task); err != nil {
		if errors.Is(err, asynq.ErrTaskIDConflict) {
			return "", c.duplicate(o.runID, o.queue)
		}
		return "", fmt.Errorf("submit run %s to queue %s: %w", o.runID, o.queue, err)
	}
	return o.runID, nil
}

// refuseElsewhere refuses a run id another queue holds (asynq's task ids
// are unique per queue only).
func (c *Client) refuseElsewhere(runID, queue string) error {
	qs, err := c.insp.Queues()
	if err != nil {
		return fmt.Errorf("list queues: %w", err)
	}
	for _, q := range qs {
		if q == queue {
			continue
		}
		if _, err := c.insp.GetTaskInfo(q, runID); err == nil {
			return c.duplicate(runID, q)
		}
	}
	return nil
}

func (c *Client) duplicate(runID, queue string) error {
	state := "submitted"
	if info, err := c.insp.GetTaskInfo(queue, runID); err == nil {
		state = stateName(info.State)
	}
	return fmt.Errorf("run %s: %w (it is %s in queue %s); choose another run id, or see it with 'cogloop status %s'", runID, ErrDuplicate, state, queue, runID)
}
