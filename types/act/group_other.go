//go:build !unix

package act

import "os/exec"

// ownGroup leaves cmd as it is: without process groups, cancelling kills
// the command's own process only.
func ownGroup(cmd *exec.Cmd) {}
