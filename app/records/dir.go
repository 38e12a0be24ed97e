package records

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cogloop/cogloop/agents/event"
)

// DefaultDir is where the CLI keeps run records, under the current directory.
const DefaultDir = ".cogloop/runs"

// DefaultMaxBytes bounds the total size of a record directory: past it,
// [Dir.Prune] removes the oldest records.
const DefaultMaxBytes int64 = 200 << 20

// Ext is a record file's extension.
const Ext = ".jsonl"

// ErrNotFound means no record matches the name given.
var ErrNotFound = errors.New("no such run record")

// Dir is a directory of run records, one file <run id>.jsonl each.
type Dir struct {
	// Path is the directory.
	Path string
	// MaxBytes bounds the records' total size ([DefaultMaxBytes] when 0).
	MaxBytes int64
}

// File is the path of run id's record.
func (d Dir) File(id string) string { return filepath.Join(d.Path, id+Ext) }

// CheckID reports a run id that cannot name a record file.
func CheckID(id string) error {
	switch {
	case id == "", id == ".", id == "..":
		return fmt.Errorf("run id %q cannot name a record file", id)
	case strings.ContainsAny(id, `/\`+"\x00"):
		return fmt.Errorf("run id %q cannot name a record file: it holds a path separator", id)
	case len(id) > 200:
		return fmt.Errorf("run id %.20q… cannot name a record file: longer than 200 bytes", id)
	}
	return nil
}

// Create opens run id's record for writing, creating the directory. With
// appendTo (a resumed run) the events go after those of the record that
// exists; otherwise a record of that id is replaced, and replaced reports it.
func (d Dir) Create(id string, appendTo bool, onErr func(error)) (w *Writer, replaced bool, err error) {
	if err := CheckID(id); err != nil {
		return nil, false, err
	}
	// Records hold prompts and replies: only their owner reads them.
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		return nil, false, fmt.Errorf("create record directory: %w", err)
	}
	path := d.File(id)
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	} else if _, err := os.Stat(path); err == nil {
		replaced = true
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("create run record: %w", err)
	}
	if appendTo {
		if err := endLine(f, path); err != nil {
			_ = f.Close() // the write error is the one to report
			return nil, false, err
		}
	}
	return NewWriter(f, "run record "+path, onErr).owning(f), replaced, nil
}

// endLine ends the line a killed run left unfinished at the end of the
// record at path (open for appending as f), so that the events appended next
// start a line of their own; the cut line is skipped when read.
func endLine(f *os.File, path string) error {
	r, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("append to run record: %w", err)
	}
	defer func() { _ = r.Close() }() // read-only
	info, err := r.Stat()
	if err != nil || info.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, info.Size()-1); err != nil {
		return fmt.Errorf("append to run record: %w", err)
	}
	if last[0] == '\n' {
		return nil
	}
	if _, err := f.Write([]byte{'\n'}); err != nil {
		return fmt.Errorf("append to run record: %w", err)
	}
	return nil
}

// entry is one record file.
type entry struct {
	id   string
	path string
	size int64
	mod  int64 // unix nanoseconds
}

// entries lists the record files, oldest first.
func (d Dir) entries() ([]entry, error) {
	des, err := os.ReadDir(d.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read record directory: %w", err)
	}
	var out []entry
	for _, de := range des {
		name := de.Name()
		if de.IsDir() || !strings.HasSuffix(name, Ext) {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, entry{id: strings.TrimSuffix(name, Ext), path: filepath.Join(d.Path, name),
			size: info.Size(), mod: info.ModTime().UnixNano()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].mod != out[j].mod {
			return out[i].mod < out[j].mod
		}
		return out[i].id < out[j].id
	})
	return out, nil
}

// Prune removes the oldest records until the directory holds at most
// MaxBytes, never the record of keep (the run being written); it returns the
// ids it removed.
func (d Dir) Prune(keep string) ([]string, error) {
	max := d.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	es, err := d.entries()
	if err != nil {
		return nil, err
	}
	var total int64
	for _, e := range es {
		total += e.size
	}
	var removed []string
	for _, e := range es {
		if total <= max {
			break
		}
		if e.id == keep {
			continue
		}
		if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("prune run records: %w", err)
		}
		total -= e.size
		removed = append(removed, e.id)
	}
	return removed, nil
}

// Find resolves a run named on the command line: a path to a record file, a
// run id, a unique prefix of one, or "latest" (the newest record).
func (d Dir) Find(name string) (string, error) {
	if strings.HasSuffix(name, Ext) || strings.ContainsAny(name, `/\`) {
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("run record %s: %w", name, err)
		}
		return name, nil
	}
	es, err := d.entries()
	if err != nil {
		return "", err
	}
	if name == "latest" {
		if len(es) == 0 {
			return "", fmt.Errorf("%w in %s: no run recorded yet", ErrNotFound, d.Path)
		}
		return es[len(es)-1].path, nil
	}
	var matches []entry
	for _, e := range es {
		if e.id == name {
			return e.path, nil
		}
		if strings.HasPrefix(e.id, name) {
			matches = append(matches, e)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w %q in %s: run 'cogloop runs' to list the recorded runs", ErrNotFound, name, d.Path)
	case 1:
		return matches[0].path, nil
	}
	ids := make([]string, 0, 3)
	for i := 0; i < len(matches) && i < 3; i++ {
		ids = append(ids, matches[i].id)
	}
	return "", fmt.Errorf("run %q is ambiguous in %s: %d records start with it (%s…); give more of the id", name, d.Path, len(matches), strings.Join(ids, ", "))
}

// Read reads the record that name resolves to (see [Dir.Find]).
func (d Dir) Read(name string) (*Record, error) {
	path, err := d.Find(name)
	if err != nil {
		return nil, err
	}
	return ReadFile(path)
}

// List summarises the newest limit records (all when limit is 0), newest
// first; it reads only those.
func (d Dir) List(limit int) ([]Summary, error) {
	es, err := d.entries()
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(es) > limit {
		es = es[len(es)-limit:]
	}
	out := make([]Summary, 0, len(es))
	for i := len(es) - 1; i >= 0; i-- {
		r, err := ReadFile(es[i].path)
		if err != nil {
			return nil, err
		}
		out = append(out, r.Summarize())
	}
	return out, nil
}

// maxStartLine bounds what Forks reads of each record: its first line, the
// run.start event.
const maxStartLine = 64 << 10

// Forks lists the recorded runs forked from run id, oldest first: the
// records whose run.start event names id in forked_from.
func (d Dir) Forks(id string) ([]Fork, error) {
	es, err := d.entries()
	if err != nil {
		return nil, err
	}
	var out []Fork
	for _, e := range es {
		f, err := os.Open(e.path)
		if err != nil {
			continue // removed meanwhile
		}
		line, _ := bufio.NewReaderSize(io.LimitReader(f, maxStartLine), 4096).ReadBytes('\n')
		_ = f.Close() // read-only
		var ev event.Event
		if json.Unmarshal(line, &ev) != nil || ev.Kind != event.RunStart {
			continue
		}
		if from, ok := ev.Data["forked_from"].(map[string]any); ok && from["run"] == id {
			pass, _ := from["pass"].(string)
			out = append(out, Fork{Run: e.id, Pass: pass})
		}
	}
	return out, nil
}
