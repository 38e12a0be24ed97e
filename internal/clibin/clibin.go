// Package clibin builds the cogloop command once per test process, for the
// tests that need a real process (kill -9, signals, a fleet of workers):
// cmd/cogloop's and the chaos suite's. Only tests import it.
//
// # Imports
//
// It imports no project package.
package clibin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once sync.Once
	dir  string
	path string
	err  error
)

// Path builds github.com/cogloop/cogloop/cmd/cogloop the first time it is
// called in a test process and returns the binary's path.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		dir, err = os.MkdirTemp("", "cogloop-bin-")
		if err != nil {
			return
		}
		path = filepath.Join(dir, "cogloop")
		out, buildErr := exec.Command("go", "build", "-o", path, "github.com/cogloop/cogloop/cmd/cogloop").CombinedOutput()
		if buildErr != nil {
			err = fmt.Errorf("go build cmd/cogloop: %w\n%s", buildErr, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Remove deletes the built binary; a TestMain calls it after m.Run.
func Remove() {
	if dir != "" {
		_ = os.RemoveAll(dir) // a temp dir; the OS cleans it if this fails
	}
}
