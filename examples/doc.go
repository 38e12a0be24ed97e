// Package examples holds the example workflows, each a directory with a
// workflow.yaml and the scripted replies (replies.yaml) that run it offline.
// The cogloop CLI's init command writes three of them (quality, society,
// validator) from the embedded [FS], so the starter files are these files
// and cannot drift from them.
//
// # Imports
//
// It imports no project package.
package examples
