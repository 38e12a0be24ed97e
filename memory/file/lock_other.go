//go:build !unix

package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// staleLock is how old a lock file may grow before it is taken to be left
// by a dead process.
const staleLock = 30 * time.Second

// lockFile creates path exclusively (O_EXCL), waiting while another holder
// has it; unlock removes it.
func lockFile(path string) (unlock func(), err error) {
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_ = f.Close()
			return func() { _ = os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if info, err := os.Stat(path); err == nil && time.Since(info.ModTime()) > staleLock {
			_ = os.Remove(path)
			continue
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}
