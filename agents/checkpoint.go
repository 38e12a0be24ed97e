package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents/lease"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/plainjson"
	"github.com/cogloop/cogloop/memory"
)

// Checkpoint saves and restores the state of one run's loops and steps by path, so
// a run that died can resume without paying again for work it finished. A nil
// *Checkpoint saves nothing and restores nothing.
//
// Savers write each piece of state once where they can (a loop writes one
// record per pass and a small head), so what a run sends to the store grows
// linearly with its work.
type Checkpoint struct {
	store    memory.Checkpoints
	runID    string
	digest   string
	restored map[string][]byte
	ttl      time.Duration
	lease    *lease.Lease // the lease every save is fenced with; nil for none

	mu        sync.Mutex
	budgets   map[string]json.RawMessage // the budget records as last committed (restored ones first)
	stepsOnce sync.Once
	steps     bool // restored holds step records (stepstate.go)
}

// NewCheckpoint saves under runID in store; digest identifies the workflow;
// restored is the state loaded for a resume (nil for a fresh run).
func NewCheckpoint(store memory.Checkpoints, runID, digest string, restored map[string][]byte) *Checkpoint {
	c := &Checkpoint{store: store, runID: runID, digest: digest, restored: restored}
	for path, data := range restored {
		if strings.HasPrefix(path, budgetPrefix) {
			if c.budgets == nil {
				c.budgets = map[string]json.RawMessage{}
			}
			c.budgets[path] = data
		}
	}
	return c
}

// WithTTL makes every save set the checkpoint's TTL to ttl instead of the
// store's CheckpointTTL (ttl > 0), and returns c.
func (c *Checkpoint) WithTTL(ttl time.Duration) *Checkpoint {
	if c != nil {
		c.ttl = ttl
	}
	return c
}

// FencedBy makes every save carry l's token: the store refuses a save once
// another holder has the run's lease; the save fails with a fatal error
// wrapping [memory.ErrLeaseLost], and l is lost, so the run's next model
// call is refused too. It returns c.
func (c *Checkpoint) FencedBy(l *lease.Lease) *Checkpoint {
	if c != nil {
		c.lease = l
	}
	return c
}

// Paths lists the restored paths that start with prefix, sorted.
func (c *Checkpoint) Paths(prefix string) []string {
	if c == nil {
		return nil
	}
	var out []string
	for p := range c.restored {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Restore decodes the state saved at path into v and reports whether there was one.
func (c *Checkpoint) Restore(path string, v any) (bool, error) {
	if c == nil {
		return false, nil
	}
	data, ok := c.restored[path]
	if !ok {
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return false, fmt.Errorf("restore checkpoint of %q: %w", path, err)
	}
	return true, nil
}

// Save stores v as the state at path.
func (c *Checkpoint) Save(ctx context.Context, path string, v any) error {
	return c.SaveAll(ctx, map[string]any{path: v})
}

// SaveAll stores each value of states as the state at its path, in one
// store call (atomic in stores whose saves are).
func (c *Checkpoint) SaveAll(ctx context.Context, states map[string]any) error {
	if c == nil || len(states) == 0 {
		return nil
	}
	cp := memory.Checkpoint{Digest: c.digest, State: make(map[string][]byte, len(states)), TTL: c.ttl, Holder: c.lease.Holder()}
	var names []string
	for path, v := range states {
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode checkpoint of %q: %w", path, err)
		}
		cp.State[path] = data
		names = append(names, path)
	}
	if err := c.store.SaveCheckpoint(ctx, c.runID, cp); err != nil {
		slices.Sort(names)
		err = fmt.Errorf("save checkpoint of %q: %w", strings.Join(names, ", "), err)
		if errors.Is(err, memory.ErrLeaseLost) {
			err = c.lease.Lose(err)
		}
		return err
	}
	return nil
}

// Plain turns values decoded with json.Decoder.UseNumber into plain Go values:
// whole numbers become int, other numbers float64, recursively through maps and
// lists, so restored values look like the ones a run made.
func Plain(v any) any { return plainjson.Plain(v) }

// budgetPrefix names budget records among a checkpoint's paths.
const budgetPrefix = "budget:"

var _ spend.Journal = (*Checkpoint)(nil)

// Committed implements [spend.Journal] with the state saved for a resume.
func (c *Checkpoint) Committed(key string) (spend.Usage, bool) {
	var u spend.Usage
	ok, err := c.Restore(budgetPrefix+key, &u)
	return u, ok && err == nil
}

// Commit implements [spend.Journal]: one small save per call. The store
// bounds the wait.
func (c *Checkpoint) Commit(key string, u spend.Usage) error {
	if err := c.Save(context.Background(), budgetPrefix+key, u); err != nil {
		return err
	}
	if data, err := json.Marshal(u); err == nil {
		c.mu.Lock()
		if c.budgets == nil {
			c.budgets = map[string]json.RawMessage{}
		}
		c.budgets[budgetPrefix+key] = data
		c.mu.Unlock()
	}
	return nil
}

// Budgets returns the run's budget records as committed so far, by their
// checkpoint paths: what a loop keeps with each pass, so that a fork from
// that pass starts with the spend the run had then.
func (c *Checkpoint) Budgets() map[string]json.RawMessage {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.budgets) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(c.budgets))
	for k, v := range c.budgets {
		out[k] = v
	}
	return out
}
