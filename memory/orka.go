package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cogloop/cogloop/internal/plainjson"
)

// OrKaHistory is a store that reads the history OrKa itself persisted for a
// loop: OrKa's LoopNode keeps past_loops as one JSON string (a list of
// objects) under the key past_loops:<loop id> ([OrKaPastLoopsKey]), outside
// any prefix or namespace. The Redis store implements it, so a user moving
// from OrKa keeps what the loop learnt in the same Redis.
type OrKaHistory interface {
	// OrKaPastLoops returns the value of OrKa's key for loopID; ok is false
	// when the key does not exist.
	OrKaPastLoops(ctx context.Context, loopID string) (data []byte, ok bool, err error)
}

// OrKaPastLoopsKey is the key OrKa keeps loopID's history under
// (orka/nodes/loop/persistence.py: f"past_loops:{self.node_id}").
func OrKaPastLoopsKey(loopID string) string { return "past_loops:" + loopID }

// MaxOrKaHistoryBytes bounds the OrKa history read: a larger value is refused.
const MaxOrKaHistoryBytes = 16 << 20

// ParseOrKaPastLoops reads OrKa's history value: a JSON list whose elements
// are objects (OrKa's past_loops entries), each returned as its JSON.
func ParseOrKaPastLoops(data []byte) ([]json.RawMessage, error) {
	if len(data) > MaxOrKaHistoryBytes {
		return nil, fmt.Errorf("OrKa's history is %d bytes, more than %d", len(data), MaxOrKaHistoryBytes)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("OrKa's history is not a JSON list: %w", err)
	}
	for i, e := range list {
		m, err := plainjson.Object(e)
		if err == nil && m == nil {
			err = errors.New("it is null")
		}
		if err != nil {
			return nil, fmt.Errorf("entry %d of OrKa's history is not a JSON object: %w", i+1, err)
		}
	}
	return list, nil
}
