package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"io"
	"os"
	"sync"
)

// Writer writes every event it observes as one complete JSON line (no HTML
// escaping) the moment it happens, with one write call per line. The first
// write error is kept, passed to the onErr given to [NewWriter], and returned
// by Close; later events are dropped.
type Writer struct {
	mu    sync.Mutex
	name  string
	w     io.Writer
	c     io.Closer // nil when the writer does not own w
	buf   bytes.Buffer
	enc   *json.Encoder
	err   error
	onErr func(error)
}

// NewWriter writes events to w, naming it name in errors; onErr (may be nil)
// hears the first write error. Close does not close w.
func NewWriter(w io.Writer, name string, onErr func(error)) *Writer {
	wr := &Writer{name: name, w: w, onErr: onErr}
	wr.enc = json.NewEncoder(&wr.buf)
	wr.enc.SetEscapeHTML(false)
	return wr
}

// owning makes Close close c.
func (w *Writer) owning(c io.Closer) *Writer {
	w.c = c
	return w
}

// Name is the file (or stream) the writer writes.
func (w *Writer) Name() string { return w.name }

// Observe writes e; it is an [event.Observer].
func (w *Writer) Observe(e event.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	w.buf.Reset()
	if err := w.enc.Encode(e); err != nil {
		w.fail(err)
		return
	}
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
		w.fail(err)
	}
}

// fail keeps the first error; w.mu is held.
func (w *Writer) fail(err error) {
	w.err = fmt.Errorf("write %s: %w", w.name, err)
	if w.onErr != nil {
		w.onErr(w.err)
	}
}

// Close closes the file the writer owns and returns the first write or close
// error, naming the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil {
		if err := w.c.Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("close %s: %w", w.name, err)
		}
		w.c = nil
	}
	return w.err
}

// Create writes events to a new file at path (truncating one that exists),
// readable by its owner only (0600, like run records: events hold prompts and
// replies); what says what the file is in errors ("write trace out.jsonl: ...").
func Create(path, what string, onErr func(error)) (*Writer, error) {
	f, err := CreatePrivate(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", what, err)
	}
	return NewWriter(f, what+" "+path, onErr).owning(f), nil
}

// CreatePrivate creates or truncates the file at path for writing with mode
// 0600: the mode of every file that holds a run's prompts and replies (records,
// traces, reports). A regular file that already exists with a wider mode is
// narrowed to 0600 too; a device (/dev/stdout) is left as it is.
func CreatePrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&^0o600 != 0 {
		if err := f.Chmod(0o600); err != nil {
			_ = f.Close() // the chmod error is the one to report
			return nil, fmt.Errorf("make %s private (mode 0600): %w", path, err)
		}
	}
	return f, nil
}

// Buffer keeps a run's events in memory, for a caller that wants them after
// the run (the CLI's run --report renders from it). It is safe for concurrent
// use.
type Buffer struct {
	mu     sync.Mutex
	events []event.Event
}

// Observe keeps e; it is an [event.Observer].
func (b *Buffer) Observe(e event.Event) {
	b.mu.Lock()
	b.events = append(b.events, e)
	b.mu.Unlock()
}

// Events returns the events kept so far, in order.
func (b *Buffer) Events() []event.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]event.Event(nil), b.events...)
}
