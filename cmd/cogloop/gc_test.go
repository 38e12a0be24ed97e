package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGCOffForShortCommandsOnly(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	none := env(nil)
	for _, cmd := range []string{"validate", "schema", "version", "help", "show", "report", "history", "runs", "presets", "init", "status", "result", "submit"} {
		assert.True(t, gcOffFor([]string{cmd, "x.yaml"}, none), cmd)
	}
	for _, cmd := range []string{"run", "eval", "worker", "bogus", "--help"} {
		assert.False(t, gcOffFor([]string{cmd, "x.yaml"}, none), cmd)
	}
	assert.False(t, gcOffFor(nil, none), "no command")
	assert.False(t, gcOffFor([]string{"validate"}, env(map[string]string{"GOGC": "100"})), "the user's GOGC wins")
	assert.False(t, gcOffFor([]string{"validate"}, env(map[string]string{"GOMEMLIMIT": "1GiB"})), "the user's GOMEMLIMIT wins")
	for cmd := range shortCommands {
		_, known := helps[cmd]
		assert.True(t, known, "%q is a command", cmd)
	}
}
