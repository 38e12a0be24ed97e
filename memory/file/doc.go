// Package file is a checkpoint store on the local file system: run
// checkpoints ([memory.Checkpoints]) and run leases ([memory.Leases]) for a
// CLI without Redis, so that --resume, fork, answer and pause work across
// processes on one machine. Histories and memories stay in the store it is
// laid over ([Store.Over]).
//
// # Files
//
// Each run's checkpoint is one JSON file, mode 0600, in the store's
// directory (mode 0700): <prefix>+<namespace>+<escaped run id>.json, written
// whole to a temporary file and renamed over the old one, so a reader sees
// the old file or the new one, never half of one. A lease is a file of its
// own beside it (.lease), and .lock is the lock file. Ids too long for a file name are named by their
// SHA-256. A checkpoint holds its digest, update time, expiry and state (each
// state value as JSON when it is JSON, else base64).
//
// # Concurrency
//
// Every read-modify-write of a run (a save merges by path; a lease is
// checked and taken) holds an exclusive lock on the directory's lock file (flock
// on Unix; elsewhere an O_EXCL lock file), so two processes saving one run
// both land their paths and two processes taking one lease cannot both get
// it. The lock is the kernel's: a killed process holds none.
//
// # Expiry
//
// TTLs follow [memory.Options] on the store's clock: a checkpoint not saved
// for its TTL loads as absent and is removed then; [Store.Sweep] removes
// every expired file.
//
// # Imports
//
// It imports memory only.
package file
