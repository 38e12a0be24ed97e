package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cogloop/cogloop/agents"
)

// trace writes every event as one complete JSON line the moment it happens,
// with one write call per line, so a process killed at any point leaves a file
// of whole lines. The first write error is kept and reported by Close (and
// through onErr, which stops the run).
type trace struct {
	mu    sync.Mutex
	name  string
	w     io.Writer
	c     io.Closer // nil for stderr
	buf   bytes.Buffer
	enc   *json.Encoder
	err   error
	onErr func(error)
}

// newTrace opens the trace at path; "-" writes to stderr.
func newTrace(path string, stderr io.Writer, onErr func(error)) (*trace, error) {
	t := &trace{name: path, onErr: onErr}
	if path == "-" {
		t.name, t.w = "stderr", stderr
	} else {
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("create trace: %w", err)
		}
		t.w, t.c = f, f
	}
	t.enc = json.NewEncoder(&t.buf)
	t.enc.SetEscapeHTML(false)
	return t, nil
}

func (t *trace) Observe(e agents.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	t.buf.Reset()
	if err := t.enc.Encode(e); err != nil {
		t.fail(err)
		return
	}
	if _, err := t.w.Write(t.buf.Bytes()); err != nil {
		t.fail(err)
	}
}

// fail keeps the first error; t.mu is held.
func (t *trace) fail(err error) {
	t.err = fmt.Errorf("write trace %s: %w", t.name, err)
	if t.onErr != nil {
		t.onErr(t.err)
	}
}

// Close closes the file and returns the first write or close error, naming it.
func (t *trace) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.c != nil {
		if err := t.c.Close(); err != nil && t.err == nil {
			t.err = fmt.Errorf("close trace %s: %w", t.name, err)
		}
		t.c = nil
	}
	return t.err
}
