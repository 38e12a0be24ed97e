package redistest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startTimeout bounds how long a server may take to answer PING.
const startTimeout = 15 * time.Second

// Server is a redis-server child process.
type Server struct {
	tb   testing.TB
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
	log  string
	args []string
	pass string // from --requirepass, for our own PING and SHUTDOWN
}

// Start starts a redis-server and registers its shutdown with tb.Cleanup.
// It skips tb (fails it when CI=true) if redis-server is not installed.
// args are extra server options, e.g. "--requirepass", "pw"; the port,
// bind address and directory are set by Start, and persistence is off
// unless args turn it on ("--appendonly", "yes").
func Start(tb testing.TB, args ...string) *Server {
	tb.Helper()
	bin := os.Getenv("REDIS_SERVER")
	if bin == "" {
		var err error
		bin, err = exec.LookPath("redis-server")
		if err != nil {
			if os.Getenv("CI") == "true" {
				tb.Fatalf("redis-server not found on PATH and CI=true: install it (apt-get install redis-server): %v", err)
			}
			tb.Skipf("redis-server not found on PATH (set CI=true to make this a failure): %v", err)
		}
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), args: args}
	s.log = filepath.Join(s.dir, "redis.log")
	for i, a := range args {
		if a == "--requirepass" && i+1 < len(args) {
			s.pass = args[i+1]
		}
	}
	tb.Cleanup(s.Kill)
	var err error
	// A free port can be taken between our probe and the server's bind;
	// try a few.
	for range 3 {
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.start(); err == nil {
			return s
		}
	}
	tb.Fatalf("start redis-server: %v", err)
	return nil
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL is a redis:// URL for database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Stop shuts the server down with SHUTDOWN SAVE, so that its data survives
// into [Server.Restart], and waits for the process to exit. Stopping a
// stopped server does nothing.
func (s *Server) Stop() {
	s.tb.Helper()
	if s.cmd == nil {
		return
	}
	reply, err := s.command("SHUTDOWN", "SAVE")
	// A server that shuts down closes the connection instead of replying.
	if err == nil && reply != "" {
		s.tb.Fatalf("redis-server at %s: SHUTDOWN SAVE replied %q", s.Addr(), reply)
	}
	select {
	case <-s.done:
	case <-time.After(startTimeout):
		s.Kill()
		s.tb.Fatalf("redis-server at %s did not exit after SHUTDOWN", s.Addr())
	}
	s.cmd = nil
}

// Kill kills the server process (SIGKILL), losing data not saved by an
// earlier Stop, and waits for it to exit. Killing a stopped server does
// nothing.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Restart starts a stopped or killed server again, on the same port and
// directory, and waits until it answers PING.
func (s *Server) Restart() {
	s.tb.Helper()
	if s.cmd != nil {
		s.tb.Fatalf("redis-server at %s: restart while running", s.Addr())
	}
	if err := s.start(); err != nil {
		s.tb.Fatalf("restart redis-server: %v", err)
	}
}

func (s *Server) start() error {
	// The caller's args come last, so they can turn persistence on
	// ("--appendonly", "yes", "--appendfsync", "always").
	args := append([]string{
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--dir", s.dir,
		"--save", "",
		"--appendonly", "no",
		"--logfile", s.log,
		"--daemonize", "no",
		"--protected-mode", "yes",
	}, s.args...)
	cmd := exec.Command(s.bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.cmd, s.done = cmd, done
	deadline := time.Now().Add(startTimeout)
	for {
		reply, err := s.command("PING")
		if err == nil && reply == "+PONG" {
			return nil
		}
		select {
		case <-done:
			s.cmd = nil
			return fmt.Errorf("redis-server on port %d exited: %s%s", s.port, out.String(), s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Kill()
			//nolint:errorlint // err may be nil (a reply that is not PONG)
			return fmt.Errorf("redis-server on port %d: no PONG within %v (last: %q, %v)%s", s.port, startTimeout, reply, err, s.logTail())
		}
	}
}

func (s *Server) logTail() string {
	b, err := os.ReadFile(s.log)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return "\nlog:\n" + strings.Join(lines, "\n")
}

// command sends one command (after AUTH, when the server has a password)
// and returns the first line of the reply, or "" when the server closed the
// connection without replying.
func (s *Server) command(args ...string) (string, error) {
	c, r, err := s.dial()
	if err != nil {
		return "", err
	}
	defer func() { _ = c.Close() }() // test server socket; nothing to flush
	return roundTrip(c, r, args...)
}

// dial opens an authenticated connection with a 30 s deadline.
func (s *Server) dial() (net.Conn, *bufio.Reader, error) {
	// Generous bounds: a loopback server on a machine under heavy load
	// (issue 32 item 19) answers late, never wrongly.
	c, err := net.DialTimeout("tcp", s.Addr(), 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	if s.pass != "" {
		line, err := roundTrip(c, r, "AUTH", s.pass)
		if err == nil && line != "+OK" {
			err = fmt.Errorf("AUTH: %s", line)
		}
		if err != nil {
			_ = c.Close() // the AUTH error is the one to report
			return nil, nil, err
		}
	}
	return c, r, nil
}

// NetInputBytes is the server's total_net_input_bytes (INFO stats): every
// byte clients have sent it since it started, for tests and benchmarks that
// bound what a run writes.
func (s *Server) NetInputBytes() (int64, error) {
	stats, err := s.info("stats")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(stats, "\r\n") {
		if v, ok := strings.CutPrefix(line, "total_net_input_bytes:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("INFO stats has no total_net_input_bytes")
}

// PTTL is key's remaining time to live on the server: -1ms for a key
// without one, -2ms for no key.
func (s *Server) PTTL(key string) (time.Duration, error) {
	line, err := s.command("PTTL", key)
	if err != nil {
		return 0, err
	}
	ms, err := strconv.ParseInt(strings.TrimPrefix(line, ":"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("PTTL %s: reply %q", key, line)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// info returns the text of one INFO section.
func (s *Server) info(section string) (string, error) {
	c, r, err := s.dial()
	if err != nil {
		return "", err
	}
	defer func() { _ = c.Close() }() // test server socket; nothing to flush
	head, err := roundTrip(c, r, "INFO", section)
	if err != nil {
		return "", err
	}
	size, err := strconv.Atoi(strings.TrimPrefix(head, "$"))
	if err != nil {
		return "", fmt.Errorf("INFO %s: reply %q", section, head)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return "", fmt.Errorf("INFO %s: %w", section, err)
	}
	return string(body), nil
}

func roundTrip(c net.Conn, r *bufio.Reader, args ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	line, err := r.ReadString('\n')
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return "", err
	}
	if err != nil && line == "" {
		return "", nil // closed without a reply
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }() // test server socket; nothing to flush
	return l.Addr().(*net.TCPAddr).Port, nil
}
