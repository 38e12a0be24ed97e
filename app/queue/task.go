package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cogloop/cogloop/orchestrator"
)

// taskType is the asynq task type of a cogloop run.
const taskType = "cogloop:run"

// DefaultQueue is the queue runs go to and workers take from by default.
const DefaultQueue = "cogloop"

// Defaults of a submitted run's task options.
const (
	DefaultMaxRetry  = 5
	DefaultRetention = 24 * time.Hour
	DefaultTimeout   = time.Hour
)

// payloadVersion is the version of [payload]'s shape; goPayloadVersion that
// of a run of a Go-built workflow (payload.Go), which workers before it
// refuse.
const (
	payloadVersion   = 1
	goPayloadVersion = 2
)

// payload is a run task's payload, JSON.
type payload struct {
	Version   int    `json:"v"`
	RunID     string `json:"run_id"`
	Namespace string `json:"namespace,omitempty"`
	// Workflow is the file: its bytes, or a path every worker can read.
	Workflow workflowRef `json:"workflow"`
	// Go names a workflow built in Go instead (its id): the worker builds it
	// with its Options.Workflows[Go] (payload version 2).
	Go string `json:"go,omitempty"`
	// Input is the run's input as JSON.
	Input json.RawMessage `json:"input"`
	// Strict runs with every warning an error (cogloop.WithStrict).
	Strict bool `json:"strict,omitempty"`
	// CheckpointTTL expires the run's checkpoint after that long without a
	// save (0: the store's default).
	CheckpointTTL time.Duration `json:"checkpoint_ttl_ns,omitempty"`
}

// workflowRef is the workflow of a run: Source holds its bytes, or Path names
// a file the workers share; Digest is the SHA-256 of the bytes, hex.
type workflowRef struct {
	Name   string `json:"name"`
	Source []byte `json:"source,omitempty"`
	Path   string `json:"path,omitempty"`
	Digest string `json:"digest"`
}

// Workflow is a workflow file to submit.
type Workflow struct {
	name   string
	data   []byte
	shared bool
}

// Source is a workflow given as bytes; name is used in error positions.
// The bytes travel in the task payload.
func Source(name string, data []byte) Workflow {
	return Workflow{name: name, data: data}
}

// File reads the workflow file at path; its bytes travel in the task payload.
func File(path string) (Workflow, error) {
	data, err := orchestrator.ReadFile(path, orchestrator.DefaultLimits)
	if err != nil {
		return Workflow{}, err
	}
	return Workflow{name: path, data: data}, nil
}

// SharedFile reads the workflow file at path, but only its absolute path and
// digest travel in the payload: every worker must see the same file there.
// A worker refuses the run when the file's digest changed.
func SharedFile(path string) (Workflow, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Workflow{}, fmt.Errorf("workflow %s: %w", path, err)
	}
	w, err := File(abs)
	w.shared = true
	return w, err
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ref is what the payload carries for w.
func (w Workflow) ref() workflowRef {
	r := workflowRef{Name: w.name, Digest: digest(w.data)}
	if w.shared {
		r.Path = w.name
	} else {
		r.Source = w.data
	}
	return r
}

// source returns the workflow's bytes, reading a shared file.
func (r workflowRef) source() ([]byte, error) {
	if r.Path == "" {
		if digest(r.Source) != r.Digest {
			return nil, permanent(fmt.Errorf("workflow %s: the payload's bytes do not match its digest %.12s", r.Name, r.Digest))
		}
		return r.Source, nil
	}
	data, err := os.ReadFile(r.Path)
	if err != nil {
		// The share may be missing on this machine for a while: retry.
		return nil, fmt.Errorf("read shared workflow file: %w (every worker must see the submitted path)", err)
	}
	if d := digest(data); d != r.Digest {
		return nil, permanent(fmt.Errorf("shared workflow file %s changed since the run was submitted (digest %.12s, submitted %.12s); submit the run again", r.Path, d, r.Digest))
	}
	return data, nil
}

// checkRunID refuses run ids that would be awkward as task ids and keys.
func checkRunID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("empty run id")
	case len(id) > 200:
		return fmt.Errorf("run id %.20q… is longer than 200 bytes", id)
	case strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("run id %q has a space or control character", id)
	}
	return nil
}
