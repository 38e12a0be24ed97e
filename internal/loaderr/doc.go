// Package loaderr owns how a load that found several problems reads as one
// error: the problems one a line, in the order found, under a count when
// there is more than one, and each one visible to errors.Is/As. The workflow
// reader (agents) and the scoring preset reader share it; it imports no
// project package.
//
// # Imports
//
// It imports no project package.
package loaderr
