package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sessions are the connections of one run to its MCP servers, with the tools
// each listed at start. Close ends them all.
type Sessions struct {
	mu    sync.Mutex
	conns map[string]*conn
}

type conn struct {
	srv    *Server
	cs     *sdk.ClientSession
	cmd    *exec.Cmd // stdio servers
	stderr *tail
	tools  []*sdk.Tool
	// standIn is the in-process server of a scripted stand-in.
	standIn *sdk.ServerSession
	// shared is a share: process server's: runs do not close it; gone
	// says its session ended (a call saw the server go, or it exited).
	shared bool
	gone   atomic.Bool
}

// client is who cogloop says it is in initialize.
var client = &sdk.Implementation{Name: "cogloop", Version: "1"}

// connect starts or contacts each server, initializes it and lists its
// tools, each within the server's start_timeout. On a failure the servers
// already started are closed and the error names the server and what to check.
func connect(ctx context.Context, servers []*Server, standIns StandIns) (*Sessions, error) {
	s := &Sessions{conns: map[string]*conn{}}
	for _, srv := range servers {
		var c *conn
		var err error
		if tools, ok := standIns[srv.Name]; ok {
			c, err = standIn(ctx, srv, tools)
		} else if srv.Share == ShareProcess {
			c, err = sharedConn(ctx, srv)
		} else {
			c, err = dial(ctx, srv)
		}
		if err != nil {
			_ = s.Close()
			return nil, err
		}
		s.conns[srv.Name] = c
	}
	return s, nil
}

func dial(ctx context.Context, srv *Server) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, srv.StartTimeout)
	defer cancel()
	c := &conn{srv: srv}
	var t sdk.Transport
	if srv.URL != "" {
		h := http.Header{}
		for k, v := range srv.Headers {
			val, err := srv.header(k, v)
			if err != nil {
				return nil, err
			}
			h.Set(k, val)
		}
		t = &sdk.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: headers{h, http.DefaultTransport}}}
	} else {
		path, err := srv.command()
		if err != nil {
			return nil, fmt.Errorf("%s did not start: %w: check that %s is installed and on PATH", srv.What(), err, srv.Command[0])
		}
		cmd := exec.Command(path, srv.Command[1:]...) //nolint:gosec // the workflow's own command, argv without a shell
		cmd.Env = srv.env()
		// The server's stderr is read here, to its end (the server's exit),
		// so an error can quote its last words.
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("%s did not start: %w", srv.What(), err)
		}
		c.stderr = &tail{done: make(chan struct{})}
		go c.stderr.read(pr)
		defer func() { _ = pw.Close() }() // the child has its copy once Connect started it
		cmd.Stderr = pw
		cmd.WaitDelay = time.Second
		ownGroup(cmd)
		c.cmd = cmd
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	cl := sdk.NewClient(client, nil)
	cs, err := cl.Connect(ctx, t, nil)
	if err != nil {
		c.kill()
		return nil, c.failure("did not initialize", ctx, err)
	}
	c.cs = cs
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			c.close()
			return nil, c.failure("did not list its tools", ctx, err)
		}
		c.tools = append(c.tools, tool)
	}
	return c, nil
}

// failure is an error of the start of c: what went wrong, and what to check.
func (c *conn) failure(what string, ctx context.Context, err error) error {
	check := "check the command starts an MCP server speaking stdio"
	if c.srv.URL != "" {
		check = "check that the server runs and the url is its MCP endpoint"
	}
	if ctx.Err() == context.DeadlineExceeded {
		what += fmt.Sprintf(" within its start_timeout of %s", c.srv.StartTimeout)
	}
	return errors.New(fmt.Sprintf("%s %s: %v: %s", c.srv.What(), what, err, check) + c.lastWords())
}

// lastWords is what a stdio server wrote last on stderr, once it exited
// (waiting at most a second for its stderr to end), for an error.
func (c *conn) lastWords() string {
	if c.stderr == nil {
		return ""
	}
	c.stderr.settle(time.Second)
	if s := c.stderr.String(); s != "" {
		return "; its stderr ends: " + s
	}
	return ""
}

// close ends the session, then kills what is left of a stdio server's
// process group.
func (c *conn) close() {
	if c.cs != nil {
		_ = c.cs.Close()
	}
	if c.standIn != nil {
		_ = c.standIn.Close()
	}
	c.kill()
}

func (c *conn) kill() {
	// The SDK's close (or a failed Connect) has waited for the server
	// itself; what it started is killed here.
	if c.cmd != nil && c.cmd.Process != nil {
		killGroup(c.cmd)
	}
}

// Close ends every session; stdio servers are killed with their process group.
func (s *Sessions) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range s.conns {
		if c.shared {
			continue // closed by CloseShared
		}
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	s.conns = nil
	return nil
}

func (s *Sessions) conn(name string) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[name]
}

// headers adds fixed headers to every request.
type headers struct {
	h    http.Header
	next http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header[k] = v
	}
	return h.next.RoundTrip(r)
}

// tail keeps the last bytes a server wrote to stderr, for errors; done
// closes when its stderr ended.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	done chan struct{}
}

func (t *tail) read(r io.ReadCloser) {
	defer close(t.done)
	_, _ = io.Copy(t, r)
	_ = r.Close()
}

// settle waits until the server's stderr ended, at most d.
func (t *tail) settle(d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
	}
}

const tailSize = 2 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
