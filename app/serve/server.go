package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/types/human"
)

// DefaultAddr is where cogloop serve listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7878"

// Defaults of [Config].
const (
	DefaultPoll         = 250 * time.Millisecond
	DefaultClientBuffer = 1024
)

// Config is what a [Server] serves.
type Config struct {
	// Addr is the address the server listens on: off loopback it needs Token.
	Addr string
	// Records is the record directory the runs are read from.
	Records records.Dir
	// Workflows is the directory runs may be started from ("": none).
	Workflows string
	// Token, when set, is required of every request.
	Token string
	// Queue, when set, is the queue shown on the queue page.
	Queue *queue.Client
	// Start runs a workflow as cogloop run does and returns when the run
	// ended; nil: runs cannot be started.
	Start func(ctx context.Context, r StartRequest) error
	// Answer records a person's answer to the question run runID waits for
	// and returns how to continue the run, which the server does in the
	// background (the CLI wires cogloop answer's code); nil: no answers here.
	Answer func(ctx context.Context, runID string, a human.Answer) (func(context.Context) error, error)
	// Fork starts run r.RunID as cogloop fork does (from pass r.Pass of run
	// r.Parent) and returns when it ended; nil: no forks here.
	Fork func(ctx context.Context, r ForkRequest) error
	// Pause asks run runID to stop at its next pass boundary (cogloop
	// pause's code); nil: no pauses here.
	Pause func(ctx context.Context, runID string) error
	// Poll is how often records of runs started elsewhere are re-read
	// ([DefaultPoll] when 0).
	Poll time.Duration
	// ClientBuffer is how many events a client of an event stream may lag
	// behind before it is dropped ([DefaultClientBuffer] when 0).
	ClientBuffer int
	// Log hears what goes wrong outside a request (nil: os.Stderr).
	Log io.Writer
}

// StartRequest is one run to start.
type StartRequest struct {
	RunID string
	// Workflow is the workflow file; Replies its scripted replies ("": none).
	Workflow, Replies string
	Input             string
	// Observe hears every event of the run as it happens.
	Observe event.Observer
}

// Server serves the UI and the API.
type Server struct {
	cfg     Config
	handler http.Handler
	ctx     context.Context
	cancel  context.CancelFunc
	runs    sync.WaitGroup

	mu       sync.Mutex
	hubs     map[string]*hub
	live     map[string]bool   // runs started here that have not ended
	startErr map[string]string // runs started here that ended without a record
	closed   bool

	cache listCache
}

// New checks cfg and returns its server.
func New(cfg Config) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if err := CheckAddr(cfg.Addr, cfg.Token); err != nil {
		return nil, err
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.ClientBuffer <= 0 {
		cfg.ClientBuffer = DefaultClientBuffer
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.Workflows != "" {
		st, err := os.Stat(cfg.Workflows)
		if err != nil {
			return nil, fmt.Errorf("workflows directory: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("workflows directory %s is not a directory", cfg.Workflows)
		}
	}
	s := &Server{cfg: cfg, hubs: map[string]*hub{}, live: map[string]bool{}, startErr: map[string]string{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.handler = s.guard(s.routes())
	return s, nil
}

// CheckAddr refuses an address that is not loopback when there is no token.
func CheckAddr(addr, token string) error {
	if token != "" || Loopback(addr) {
		return nil
	}
	return fmt.Errorf("address %s is not loopback: anyone who can reach it could read every run and start new ones; give --token T (or set COGLOOP_TOKEN), or listen on 127.0.0.1", addr)
}

// Loopback reports an address whose host is a loopback IP or localhost.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return loopbackHost(host)
}

func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP serves the UI and the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close cancels the runs the server started and waits for them to end, and
// stops every reader of records.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for id, h := range s.hubs {
		h.close()
		delete(s.hubs, id)
	}
	s.mu.Unlock()
	s.cancel()
	s.runs.Wait()
	return nil
}

func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.cfg.Log, "cogloop serve: "+format+"\n", args...)
}

// isLive reports a run started here that has not ended.
func (s *Server) isLive(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id]
}

// errNoStart: this server starts no runs.
var errNoStart = errors.New("this server starts no runs: give cogloop serve --workflows DIR")

// start starts the workflow at rel (under Workflows) with input and returns
// the new run's id; the run goes on after the request.
func (s *Server) start(rel, input string) (string, error) {
	if s.cfg.Start == nil || s.cfg.Workflows == "" {
		return "", errNoStart
	}
	wf, err := resolveWorkflow(s.cfg.Workflows, rel)
	if err != nil {
		return "", err
	}
	id := newRunID()
	_, err = s.launch(id, rel, func(ctx context.Context, observe event.Observer) error {
		return s.cfg.Start(ctx, StartRequest{RunID: id, Workflow: wf.path, Replies: wf.replies, Input: input, Observe: observe})
	})
	if err != nil {
		return "", err
	}
	return id, nil
}
