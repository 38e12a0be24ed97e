package loopnode

import (
	"github.com/cogloop/cogloop/agents/load"
)

// maxHistoryKey bounds a history_key (memory ids are bounded the same).
const maxHistoryKey = 512

// readHistoryKey reads history_key: the id the loop's persisted history is
// kept under instead of the workflow's id and the loop's, so that loops of
// different workflows that name the same key share one history on purpose.
func readHistoryKey(c *load.Config, persistent bool) string {
	key := c.String("history_key", "")
	switch {
	case !c.Has("history_key"):
	case key == "":
		c.Errorf("history_key", "history_key must not be empty: leave it out to keep the loop's history per workflow")
	case len(key) > maxHistoryKey:
		c.Errorf("history_key", "history_key is %d bytes, more than %d", len(key), maxHistoryKey)
		key = ""
	case !persistent:
		c.Warnf("history_key", "history_key has no effect without persist_across_runs: true")
	}
	return key
}
