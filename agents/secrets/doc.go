// Package secrets owns credentials and keeping them out of everything a run
// shows: a [Secret] prints as [Redacted] however it is formatted and gives
// its value only through [Secret.Reveal]; [Scrub] and [ScrubError] replace
// secret values in text and error messages — and their near-copies: another
// letter case, whitespace inside, a piece at least 16 bytes and half the
// value long (one linear pass per secret, variants.go) — and a [Set] holds the secrets
// a run scrubs from model replies and prompts (agents.Run.AddSecrets).
//
// # Imports
//
// It imports no project package.
//
// # Concurrency
//
// A [Set] is safe for concurrent use; a [Secret] is an immutable value.
package secrets
