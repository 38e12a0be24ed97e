package main

import (
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// A test's stdin is whatever go test got; runs without INPUT read an
	// empty stdin instead, unless a test sets its own.
	stdin = strings.NewReader("")
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir) // a temp dir; the OS cleans it if this fails
	}
	os.Exit(code)
}
