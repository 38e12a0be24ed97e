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
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
