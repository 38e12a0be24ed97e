package loaderr

import (
	"fmt"
	"strings"
)

// Message joins problems one a line. With more than one, the first line is
// "<n> <what>:" (what is e.g. "problems" or "problems in scoring presets").
// Warnings follow, each prefixed with "warning: ".
func Message[P error](what string, problems, warnings []P) string {
	var b strings.Builder
	if len(problems) > 1 {
		fmt.Fprintf(&b, "%d %s:\n", len(problems), what)
	}
	for i, p := range problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	for _, p := range warnings {
		b.WriteString("\nwarning: ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap returns the problems as errors, for a LoadError's Unwrap() []error.
func Unwrap[P error](problems []P) []error {
	out := make([]error, len(problems))
	for i, p := range problems {
		out[i] = p
	}
	return out
}
