//go:build unix

package act

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own and makes cancelling kill
// the whole group, so children the command starts die with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
