// Package plainjson decodes JSON into the plain values a run makes: objects
// become map[string]any, arrays []any, whole numbers that fit in an int64
// int, other numbers float64, strings string, booleans bool and null nil.
// That is exactly what json.Decoder with UseNumber followed by agents.Plain
// produces (the fuzz test holds the two to it), in one pass over the bytes
// and without json.Number strings: what a loop reads back from its
// persisted history on every run (issue 18 item 7).
//
// It also walks the members of an object without decoding them
// ([Members]), so a store can pick fields out of its own envelope and keep
// the rest as raw JSON.
//
// It imports only the standard library.
//
// # Imports
//
// It imports internal/perf only.
package plainjson
