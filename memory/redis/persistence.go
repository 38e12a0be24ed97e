package redis

import (
	"context"
	"fmt"
	"strings"
)

// Persistence is what a server keeps on disk: the append-only file and
// RDB snapshots (CONFIG GET appendonly / save).
type Persistence struct {
	AOF  bool   // appendonly yes
	Save string // the RDB save rules ("3600 1 300 100"); "" when snapshots are off
}

// Durable reports whether anything the server acknowledged survives a
// restart.
func (p Persistence) Durable() bool { return p.AOF || p.Save != "" }

// Persistence reads the server's persistence settings with one CONFIG GET.
// A server that refuses CONFIG (a managed service renaming it) is an error;
// callers treat that as unknown.
func (s *Store) Persistence(ctx context.Context) (Persistence, error) {
	var m map[string]string
	err := s.do(ctx, "read persistence settings", func(ctx context.Context) error {
		var err error
		m, err = s.client.ConfigGet(ctx, "appendonly").Result()
		if err != nil {
			return err
		}
		save, err := s.client.ConfigGet(ctx, "save").Result()
		for k, v := range save {
			m[k] = v
		}
		return err
	})
	if err != nil {
		return Persistence{}, err
	}
	if _, ok := m["appendonly"]; !ok {
		return Persistence{}, fmt.Errorf("redis %s: read persistence settings: CONFIG GET answered no appendonly", s.addr)
	}
	return Persistence{AOF: m["appendonly"] == "yes", Save: strings.TrimSpace(m["save"])}, nil
}
