//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
	"time"
)

// ownGroup starts cmd in a process group of its own, so that killGroup
// reaches the processes it starts (npx starts node).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills cmd's process group and waits, at most a second, until
// no process of it is left (SIGKILL is delivered asynchronously).
func killGroup(cmd *exec.Cmd) {
	pgid := cmd.Process.Pid
	if syscall.Kill(-pgid, syscall.SIGKILL) != nil {
		return // no process left in the group
	}
	deadline := time.Now().Add(time.Second)
	for wait := time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, 50*time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(wait)
	}
}
