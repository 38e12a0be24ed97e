package memory

import (
	"fmt"
	"strings"
)

// maxIDLen bounds an id (loop id, run id, memory namespace, memory id)
// before escaping.
const maxIDLen = 512

// maxNameLen bounds a prefix or namespace.
const maxNameLen = 64

// Kind names one key of the schema; see [Keyspace.Key].
type Kind int

// The keys of the schema, with the id each one takes.
const (
	KindPastLoops     Kind = iota // loop:<loop id>:past_loops      list of entries
	KindPastLoopIDs               // loop:<loop id>:past_loop_ids   list of entry ids, in step with past_loops
	KindCheckpoint                // run:<run id>:checkpoint        hash
	KindMemories                  // mem:<namespace>:memories       hash memory id → memory
	KindMemoryCreated             // mem:<namespace>:created        sorted set memory id → created (ms)
	KindMemoryExpires             // mem:<namespace>:expires        sorted set memory id → expires (ms, +inf)
	KindLease                     // run:<run id>:lease             string: the holder's token, with a TTL
)

var kinds = [...]struct{ scope, field string }{
	KindPastLoops:     {"loop", "past_loops"},
	KindPastLoopIDs:   {"loop", "past_loop_ids"},
	KindCheckpoint:    {"run", "checkpoint"},
	KindMemories:      {"mem", "memories"},
	KindMemoryCreated: {"mem", "created"},
	KindMemoryExpires: {"mem", "expires"},
	KindLease:         {"run", "lease"},
}

// Keyspace builds every key a store uses, from validated parts:
//
//	<prefix>:<namespace>:<scope>:<escaped id>:<field>
//
// Prefix and namespace are restricted to [A-Za-z0-9_.-]. Ids are escaped:
// bytes outside that set, '%' included, become %XX. An escaped id contains
// no ':' (so it cannot reach into another part of the key), no glob
// characters ('*', '?', '[') and no '{' or '}' (no cluster hash tags),
// and escaping is one-to-one, so two different ids never share a key.
type Keyspace struct {
	prefix, namespace string
}

// NewKeyspace validates prefix and namespace (after [Options.Resolve]
// defaults, so empty values are errors here).
func NewKeyspace(prefix, namespace string) (Keyspace, error) {
	if err := checkName("prefix", prefix); err != nil {
		return Keyspace{}, err
	}
	if err := checkName("namespace", namespace); err != nil {
		return Keyspace{}, err
	}
	return Keyspace{prefix: prefix, namespace: namespace}, nil
}

// Key returns the key of kind for id. It fails with [ErrInvalid] when id is
// empty or longer than 512 bytes, or kind is unknown.
func (k Keyspace) Key(kind Kind, id string) (string, error) {
	if kind < 0 || int(kind) >= len(kinds) {
		return "", fmt.Errorf("unknown key kind %d: %w", kind, ErrInvalid)
	}
	if k.prefix == "" {
		return "", fmt.Errorf("zero keyspace: %w", ErrInvalid)
	}
	kd := kinds[kind]
	if id == "" {
		return "", fmt.Errorf("empty %s id: %w", kd.scope, ErrInvalid)
	}
	if len(id) > maxIDLen {
		return "", fmt.Errorf("%s id longer than %d bytes: %w", kd.scope, maxIDLen, ErrInvalid)
	}
	return k.prefix + ":" + k.namespace + ":" + kd.scope + ":" + escapeID(id) + ":" + kd.field, nil
}

// LoopKeys returns every key that holds loopID's history: what
// "cogloop history --clear" deletes, and nothing else.
func (k Keyspace) LoopKeys(loopID string) ([]string, error) {
	entries, err := k.Key(KindPastLoops, loopID)
	if err != nil {
		return nil, err
	}
	ids, err := k.Key(KindPastLoopIDs, loopID)
	if err != nil {
		return nil, err
	}
	return []string{entries, ids}, nil
}

// HistoryID is the id a loop's persisted history is kept under
// (persist_across_runs): the workflow (orchestrator) id, escaped as keys
// escape ids, a '/', and the loop id, so two workflows whose loops share an
// id never share a history. The escaped workflow id holds no '/', so two
// different (workflow, loop) pairs never share an id. An empty workflow
// gives the loop id alone: the id histories had before they were scoped by
// workflow (and the id a loop's history_key names verbatim).
func HistoryID(workflow, loop string) string {
	if workflow == "" {
		return loop
	}
	return escapeID(workflow) + "/" + loop
}

// MemoryKeys returns the keys of a memory namespace: memories, created,
// expires.
func (k Keyspace) MemoryKeys(namespace string) ([]string, error) {
	out := make([]string, 0, 3)
	for _, kind := range []Kind{KindMemories, KindMemoryCreated, KindMemoryExpires} {
		key, err := k.Key(kind, namespace)
		if err != nil {
			return nil, err
		}
		out = append(out, key)
	}
	return out, nil
}

func safeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func escapeID(id string) string {
	n := 0
	for i := 0; i < len(id); i++ {
		if !safeByte(id[i]) {
			n++
		}
	}
	if n == 0 {
		return id
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(id) + 2*n)
	for i := 0; i < len(id); i++ {
		c := id[i]
		if safeByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func checkName(what, s string) error {
	if s == "" {
		return fmt.Errorf("empty %s: %w", what, ErrInvalid)
	}
	if len(s) > maxNameLen {
		return fmt.Errorf("%s longer than %d bytes: %w", what, maxNameLen, ErrInvalid)
	}
	for i := 0; i < len(s); i++ {
		if !safeByte(s[i]) {
			return fmt.Errorf("%s %q: byte %q not in [A-Za-z0-9_.-]: %w", what, s, s[i], ErrInvalid)
		}
	}
	return nil
}

// BrainID is the memory id of one item of a brain (kind "skill" or
// "episode"; skills of every type, recipes, anti-patterns and paths
// included): "<kind>:<escaped id>". Brain items are memories of the brain's
// namespace, so their storage keys are [Keyspace.Key]'s, like every other
// memory's.
func BrainID(kind, id string) string { return kind + ":" + escapeID(id) }
