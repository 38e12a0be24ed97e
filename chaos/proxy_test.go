package chaos

import (
	"net"
	"sync"
	"testing"
	"time"
)

// fault is what the proxy does to traffic.
type fault int

const (
	pass      fault = iota // forward both ways
	latency                // forward, each client write delayed
	reset                  // reset every connection, open or new
	blackHole              // accept and read, answer nothing
)

// faultProxy sits between a client and a TCP server and injects faults.
type faultProxy struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	fault    fault
	delay    time.Duration
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup // connection goroutines
	accepted chan struct{}  // closed when the accept loop ends
}

func startProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, accepted: make(chan struct{})}
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// URL is a redis:// URL through the proxy.
func (p *faultProxy) URL() string { return "redis://" + p.ln.Addr().String() + "/0" }

// set switches the fault for open and new connections.
func (p *faultProxy) set(f fault, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault, p.delay = f, delay
	if f == reset {
		for c := range p.conns {
			resetConn(c)
		}
	}
}

func (p *faultProxy) current() (fault, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fault, p.delay
}

func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close with RST
	}
	_ = c.Close()
}

func (p *faultProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *faultProxy) accept() {
	defer close(p.accepted)
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if f, _ := p.current(); f == reset {
			resetConn(c)
			continue
		}
		if !p.track(c) {
			resetConn(c)
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *faultProxy) serve(client net.Conn) {
	defer p.wg.Done()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		resetConn(client)
		return
	}
	if !p.track(server) {
		resetConn(client)
		_ = server.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.pipe(server, client, true); done <- struct{}{} }()
	go func() { p.pipe(client, server, false); done <- struct{}{} }()
	<-done
	_ = client.Close()
	_ = server.Close()
	<-done
}

// pipe copies src to dst chunk by chunk, applying the fault of the moment;
// toServer marks the client-to-server direction, the one latency delays.
func (p *faultProxy) pipe(dst, src net.Conn, toServer bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			f, d := p.current()
			switch {
			case f == blackHole:
				// dropped
			case f == latency && toServer:
				t := time.NewTimer(d)
				<-t.C
				fallthrough
			default:
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// drop resets every open connection and waits until their goroutines have
// ended, so that no write of a client that gave up can still reach the
// server: what a dead process's closed connections amount to.
func (p *faultProxy) drop() {
	p.mu.Lock()
	for c := range p.conns {
		resetConn(c)
		delete(p.conns, c)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *faultProxy) close() {
	_ = p.ln.Close()
	<-p.accepted
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
