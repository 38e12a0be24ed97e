package mcp

import "github.com/cogloop/cogloop/agents/load"

// ReadInto reads the servers under key of c ([Read]) into s and returns s;
// a nil s starts a new set (the top-level file's servers), otherwise the
// servers join it (a workflow_ref file's) and a name declared twice is an
// error on c. It is the orchestrator's reader of mcp_servers (cogloop
// passes it with orchestrator.WithToolServers).
func ReadInto(s *Set, c *load.Config, key string) *Set {
	servers := Read(c, key)
	if s == nil {
		return NewSet(servers)
	}
	if err := s.Add(servers); err != nil {
		c.Errorf(key, "%v", err)
	}
	return s
}
