package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents/load"
)

// Defaults of a server's timeouts.
const (
	DefaultCallTimeout  = 60 * time.Second
	DefaultStartTimeout = 30 * time.Second
)

// Server is one entry of mcp_servers: a command speaking MCP on stdio, or a
// streamable HTTP endpoint.
type Server struct {
	Name string
	// Command is the argv of a stdio server (no shell); Env the names of the
	// environment variables it is given besides PATH.
	Command []string
	Env     []string
	// URL is a streamable HTTP server's endpoint; Headers are sent with every
	// request, ${NAME} in a value read from the environment at start.
	URL     string
	Headers map[string]string
	// CallTimeout bounds one tool call; StartTimeout the start, initialize
	// and tools/list.
	CallTimeout, StartTimeout time.Duration
	// LookupEnv reads the environment: Env's variables and PATH (where a
	// command is looked for, and what it is given), and the ${NAME}s of
	// Headers. Nil reads the process environment ([Set.UseEnv] sets it:
	// cogloop.WithEnv).
	LookupEnv func(name string) (string, bool)
	// Share is ShareRun (a stdio server is started for each run) or
	// ShareProcess (started once per process, for every run of a worker,
	// until [CloseShared]).
	Share string
	Pos   load.Pos
}

// The values of share:.
const (
	ShareRun     = "run"
	ShareProcess = "process"
)

// What names s for errors: mcp server "fs" (command npx …) or (url …).
func (s *Server) What() string {
	if s.URL != "" {
		return fmt.Sprintf("mcp server %q (url %s)", s.Name, s.URL)
	}
	return fmt.Sprintf("mcp server %q (command %s)", s.Name, strings.Join(s.Command, " "))
}

var (
	serverName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	envRef     = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]{0,127})\}`)
)

// Read reads key of c (mcp_servers: {name: {command | url, ...}}), recording
// problems at their positions.
func Read(c *load.Config, key string) []*Server {
	if c.Recording() {
		c.Decode(key, new(any)) // a map of names the user picks: any object
		return nil
	}
	m := c.Map(key)
	if m == nil {
		return nil
	}
	var out []*Server
	for _, name := range m.Keys() {
		if !serverName.MatchString(name) {
			m.Errorf(name, "mcp server name %q must be a letter then letters, digits, _ or - (it prefixes its tools: %s.TOOL)", name, name)
			continue
		}
		sc := m.Map(name)
		if sc == nil {
			m.Errorf(name, "mcp server %q is empty: give {command: [argv]} or {url: http://…}", name)
			continue
		}
		if s := readServer(sc, name); s != nil {
			s.Pos = m.KeyPos(name)
			out = append(out, s)
		}
	}
	m.Done()
	return out
}

func readServer(c *load.Config, name string) *Server {
	s := &Server{Name: name}
	s.Command = c.Strings("command")
	s.Env = c.Strings("env")
	s.URL = strings.TrimSpace(c.String("url", ""))
	if h := c.Map("headers"); h != nil {
		s.Headers = map[string]string{}
		for _, k := range h.Keys() {
			s.Headers[k] = h.String(k, "")
		}
		h.Done()
	}
	s.CallTimeout = c.Duration("call_timeout", DefaultCallTimeout)
	s.StartTimeout = c.Duration("start_timeout", DefaultStartTimeout)
	s.Share = c.String("share", ShareRun)
	checkServer(c, s)
	c.Done()
	return s
}

// checkServer reports the keys of a server entry that do not go together.
func checkServer(c *load.Config, s *Server) {
	name := s.Name
	switch {
	case s.Share != ShareRun && s.Share != ShareProcess:
		c.Errorf("share", "mcp server %q: share is %s (a server per run) or %s (one per process, shared by its runs), not %q", name, ShareRun, ShareProcess, s.Share)
	case s.Share == ShareProcess && s.URL != "":
		c.Errorf("share", "mcp server %q: share: process keeps a command's process for every run; a url server is contacted by each run", name)
	}
	checkTransport(c, s)
}

// checkTransport reports a server that is not one command or one url, and
// the keys of the other kind.
func checkTransport(c *load.Config, s *Server) {
	name := s.Name
	switch {
	case len(s.Command) > 0 && s.URL != "":
		c.Errorf("url", "mcp server %q has both command and url: a server is a command (stdio) or a url (streamable HTTP)", name)
	case len(s.Command) == 0 && s.URL == "":
		c.Errorf("", "mcp server %q needs command: [argv] (a stdio server) or url: http://… (streamable HTTP)", name)
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		c.Errorf("url", "mcp server %q: url %q must start with http:// or https://", name, s.URL)
	}
	if s.URL != "" && len(s.Env) > 0 {
		c.Errorf("env", "mcp server %q: env names variables given to a command; a url server reads ${NAME} in its headers instead", name)
	}
	if len(s.Command) > 0 && len(s.Headers) > 0 {
		c.Errorf("headers", "mcp server %q: headers are sent to a url server; a command server gets env instead", name)
	}
	for _, e := range s.Env {
		if !envRef.MatchString("${" + e + "}") {
			c.Errorf("env", "mcp server %q: env lists %q, which is not an environment variable name (env: [HOME, GITHUB_TOKEN])", name, e)
		}
	}
}

// header expands the ${NAME} references of a header value from the
// environment; an unset variable is an error naming it.
func (s *Server) header(k, v string) (string, error) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(v, func(ref string) string {
		name := envRef.FindStringSubmatch(ref)[1]
		val, ok := s.lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return val
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%s: header %s names the environment variable %s, which is not set: set it, or change headers", s.What(), k, strings.Join(missing, ", "))
	}
	return out, nil
}

// env is a stdio server's environment: PATH and the variables Env names
// that are set.
func (s *Server) env() []string {
	out := []string{}
	for _, name := range append([]string{"PATH"}, s.Env...) {
		if v, ok := s.lookup(name); ok {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// lookup reads the variable name of s's environment.
func (s *Server) lookup(name string) (string, bool) {
	if s.LookupEnv != nil {
		return s.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

// command finds a stdio server's program: Command[0] as written when it is
// a path, else in the directories of the PATH of s's environment (with
// LookupEnv set, on systems other than Windows, whose executables
// exec.LookPath alone knows, in the process's PATH).
func (s *Server) command() (string, error) {
	file := s.Command[0]
	if s.LookupEnv == nil || strings.ContainsRune(file, filepath.Separator) || runtime.GOOS == "windows" {
		return exec.LookPath(file)
	}
	path, _ := s.LookupEnv("PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry is refused, as exec.LookPath refuses "."
		}
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: %w in the PATH of the environment WithEnv gives (%d directories)", file, exec.ErrNotFound, len(filepath.SplitList(path)))
}

// UseEnv makes every server of s read its environment (env:, PATH and the
// ${NAME}s of headers:) through lookup instead of the process's
// (cogloop.WithEnv). A nil set has no servers.
func (s *Set) UseEnv(lookup func(name string) (string, bool)) {
	for _, srv := range s.Servers() {
		srv.LookupEnv = lookup
	}
}
