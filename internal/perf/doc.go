// Package perf owns the switches that turn the project's performance
// shortcuts off, one by one, for a bisect: when a result looks wrong, run
// again with COGLOOP_PERF_OFF=all (or a comma-separated list of the names
// below) and the plain, obvious code runs instead. PERF.md at the repository
// root lists every shortcut with its measured gain and its guarding test.
// The variable is read once, when the process starts; an unknown name is
// reported by [Unknown] (the CLI warns about it).
//
// # Imports
//
// It imports no project package.
package perf
