package main

import (
	"io"

	"github.com/cogloop/cogloop/app/records"
)

// newTrace opens the --trace file at path ("-": stderr): every event as one
// complete JSON line the moment it happens, one write call per line, so a
// process killed at any point leaves a file of whole lines (the run record's
// format). The first write error goes to onErr, which stops the run.
func newTrace(path string, stderr io.Writer, onErr func(error)) (*trace, error) {
	if path == "-" {
		return records.NewWriter(stderr, "trace stderr", onErr), nil
	}
	return records.Create(path, "trace", onErr)
}

// trace is the --trace writer (eval keeps one per dataset run).
type trace = records.Writer
