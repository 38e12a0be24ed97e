package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/cogloop/cogloop/memory"
)

// Checkpoint saves and restores the state of one run's loops and steps by path, so
// a run that died can resume without paying again for work it finished. A nil
// *Checkpoint saves nothing and restores nothing.
type Checkpoint struct {
	store    memory.Checkpoints
	runID    string
	digest   string
	restored map[string][]byte
}

// NewCheckpoint saves under runID in store; digest identifies the workflow;
// restored is the state loaded for a resume (nil for a fresh run).
func NewCheckpoint(store memory.Checkpoints, runID, digest string, restored map[string][]byte) *Checkpoint {
	return &Checkpoint{store: store, runID: runID, digest: digest, restored: restored}
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
	if c == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode checkpoint of %q: %w", path, err)
	}
	cp := memory.Checkpoint{Digest: c.digest, State: map[string][]byte{path: data}}
	if err := c.store.SaveCheckpoint(ctx, c.runID, cp); err != nil {
		return fmt.Errorf("save checkpoint of %q: %w", path, err)
	}
	return nil
}

// Plain turns values decoded with json.Decoder.UseNumber into plain Go values:
// whole numbers become int, other numbers float64, recursively through maps and
// lists, so restored values look like the ones a run made.
func Plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = Plain(e)
		}
	case []any:
		for i, e := range x {
			x[i] = Plain(e)
		}
	}
	return v
}
