// Package htmlnode holds small helpers over the trees of a real HTML5 parser
// (golang.org/x/net/html): find elements, read attributes, classes and text.
// The report's tests use it to check the elements a page has as a browser
// builds them, not its text; the duckduckgo agent (types/search) reads
// result pages with it. It has no state and is safe for concurrent use.
//
// # Imports
//
// It imports no project package.
package htmlnode
