package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/cogloop/cogloop/app/queue"
)

// The submit ledger: each `cogloop submit` appends the runs it queued to a
// file beside the run records, so `cogloop status` can tell a run the queue
// lost (a Redis restarted without persistence) from one never submitted.
const (
	ledgerName = "submitted.log" // not a record (records end in .jsonl)
	// maxLedgerRead bounds what status reads of the ledger: its tail.
	maxLedgerRead = 4 << 20
	// maxVanishedChecks bounds how many recent submissions status looks up.
	maxVanishedChecks = 1000
)

type ledgerEntry struct {
	RunID     string        `json:"run_id"`
	Server    string        `json:"server"` // host:port/db, never the password
	At        time.Time     `json:"at"`
	Retention time.Duration `json:"retention_ns"`
}

// serverOf names a Redis URL's server without its credentials.
func serverOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host + u.Path
}

func ledgerPath() (string, error) {
	d, err := recordDir("")
	if err != nil {
		return "", err
	}
	return filepath.Join(d.Path, ledgerName), nil
}

// appendLedger records the queued runs; a ledger that cannot be written is
// a warning (the runs are queued).
func appendLedger(redisURL string, ids []string, retention time.Duration, stderr io.Writer) {
	if len(ids) == 0 {
		return
	}
	if retention <= 0 {
		retention = queue.DefaultRetention
	}
	err := func() error {
		path, err := ledgerPath()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		now, server := time.Now().UTC(), serverOf(redisURL)
		for _, id := range ids {
			line, _ := json.Marshal(ledgerEntry{RunID: id, Server: server, At: now, Retention: retention})
			b.Write(append(line, '\n'))
		}
		_, err = f.Write(b.Bytes())
		return errors.Join(err, f.Close())
	}()
	if err != nil {
		fmt.Fprintf(stderr, "cogloop submit: warning: the submit ledger (for 'cogloop status') was not written: %v\n", err)
	}
}

// recentSubmissions reads the ledger's runs submitted to server whose
// retention has not passed, newest last, at most maxVanishedChecks.
func recentSubmissions(server string, now time.Time) ([]string, error) {
	path, err := ledgerPath()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err == nil && st.Size() > maxLedgerRead {
		if _, err := f.Seek(st.Size()-maxLedgerRead, io.SeekStart); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	var ids []string
	sc := bufio.NewScanner(io.LimitReader(f, maxLedgerRead))
	for sc.Scan() {
		var e ledgerEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Server != server || !now.Before(e.At.Add(e.Retention)) || seen[e.RunID] {
			continue // a cut first line, another server, past its retention
		}
		seen[e.RunID] = true
		ids = append(ids, e.RunID)
	}
	if len(ids) > maxVanishedChecks {
		ids = ids[len(ids)-maxVanishedChecks:]
	}
	return ids, sc.Err()
}

// vanished lists the runs submitted to this server, still within their
// retention, that the queue does not know.
func vanished(ctx context.Context, c *queue.Client, redisURL string) ([]string, error) {
	ids, err := recentSubmissions(serverOf(redisURL), time.Now())
	if err != nil {
		return nil, fmt.Errorf("read the submit ledger: %w", err)
	}
	var out []string
	for _, id := range ids {
		_, err := c.Status(ctx, id)
		switch {
		case errors.Is(err, queue.ErrNotFound):
			out = append(out, id)
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}
