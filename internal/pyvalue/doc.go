// Package pyvalue is cogloop's one home for Python's value semantics on the
// decoded values workflows carry (nil, bool, numbers, strings, lists,
// mappings): str(), repr() with Python's string escaping, float formatting
// (repr(float)), truthiness, and float(): [Number] is the one place a
// decoded value or a text becomes a number ([Finite] without NaN and the
// infinities).
//
// Templates (prompt), the loop's past_loops_metadata (loopnode), cognition's
// metrics and the validators read values through it, so a value prints and
// tests the same everywhere. Its behaviour is checked against a table CPython
// produced once (testdata/python_values.json, made by
// testdata/python_values.py).
//
// Mappings of Go type map[string]any have no order of their own and print
// with sorted keys; [Pairs] is a mapping in its own key order, and [Dict] a
// read-only view of a map[string]any in a given order (what an agent's output
// is in its own key order, as OrKa's Python dicts keep insertion order).
// [Order] describes the key order of nested values, [Ordered] applies it and
// [JSONOrder] reads it from JSON text. Values of other
// packages' types (a template engine's lists and dicts) are turned into these
// by a [Printer]'s Convert function.
//
// # Imports
//
// It imports no project package.
package pyvalue
