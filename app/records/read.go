package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxLine bounds one event line (a prompt and a reply of a large model call).
const maxLine = 64 << 20

// Record is a run's events as read from its record.
type Record struct {
	// ID is the run id (the file name without .jsonl).
	ID string
	// Path is the record file.
	Path string
	// Events are the whole events, in order.
	Events []event.Event
	// Complete reports that the record ends with the run's run.end event.
	Complete bool
	// Problem says why an incomplete record stops where it does ("" when the
	// run simply has not ended: killed, or still running).
	Problem string
	// Skipped names the lines that were not events and were left out: the
	// line a killed run was writing, when a resumed run went on after it.
	Skipped []string
}

// ReadFile reads the record at path. A record cut short reads as far as its
// lines are whole; only a file that cannot be read is an error.
func ReadFile(path string) (*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read run record: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	r, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("read run record %s: %w", path, err)
	}
	r.Path = path
	r.ID = strings.TrimSuffix(filepath.Base(path), Ext)
	return r, nil
}

// Read reads a record from r (see [ReadFile]).
func Read(r io.Reader) (*Record, error) {
	rec := &Record{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) > 0 {
			if errors.Is(err, io.EOF) {
				rec.Problem = fmt.Sprintf("line %d is cut short (the process writing it was killed)", n)
				break
			}
			var e event.Event
			if jerr := json.Unmarshal(line, &e); jerr != nil || e.Kind == "" {
				rec.Skipped = append(rec.Skipped, fmt.Sprintf("line %d is not an event (cut short by a killed run?) and is left out", n))
				continue
			}
			rec.Events = append(rec.Events, e)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, errLongLine) {
				rec.Problem = fmt.Sprintf("line %d: %v", n, err)
				break
			}
			return nil, err
		}
	}
	if k := len(rec.Events); k > 0 && rec.Problem == "" {
		rec.Complete = rec.Events[k-1].Kind == event.RunEnd
	}
	return rec, nil
}

var errLongLine = fmt.Errorf("longer than %d MiB", maxLine>>20)

// readLine returns one line without its newline; io.EOF with a non-empty
// line means the line had no newline (a cut record).
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, errLongLine
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return bytes.TrimSpace(buf), err
		}
		return bytes.TrimSpace(buf), nil
	}
}

// Summarize summarises the record's events.
func (r *Record) Summarize() Summary {
	s := Summarize(r.Events)
	if s.RunID == "" {
		s.RunID = r.ID
	}
	s.Complete = r.Complete
	if !r.Complete {
		s.Status = StatusIncomplete
	}
	s.Problem, s.Skipped = r.Problem, r.Skipped
	return s
}
