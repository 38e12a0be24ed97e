package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/cogloop/cogloop/agents"
)

// trace writes every event as one JSON line.
type trace struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

func newTrace(path string) (*trace, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create trace: %w", err)
	}
	w := bufio.NewWriter(f)
	return &trace{f: f, w: w, enc: json.NewEncoder(w)}, nil
}

func (t *trace) Observe(e agents.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = t.enc.Encode(e)
	}
	// Each line reaches the file as it happens: a run killed with -9 leaves
	// a trace up to the kill, and a reader can follow the run line by line.
	if t.err == nil {
		t.err = t.w.Flush()
	}
}

func (t *trace) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	if err := t.f.Close(); err != nil && t.err == nil {
		t.err = err
	}
	return t.err
}
