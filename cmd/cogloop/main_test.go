package main

import (
	"github.com/cogloop/cogloop/internal/clibin"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// A test's stdin is whatever go test got; runs without INPUT read an
	// empty stdin instead, unless a test sets its own.
	stdin = strings.NewReader("")
	// Runs record into a directory of the test run, not the source tree; a
	// test that looks at records sets its own.
	recs, err := os.MkdirTemp("", "cogloop-records-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv(envRecordDir, recs); err != nil {
		panic(err)
	}
	code := m.Run()
	_ = os.RemoveAll(recs) // a temp dir; the OS cleans it if this fails
	clibin.Remove()
	os.Exit(code)
}
