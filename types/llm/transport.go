package llm

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// defaultPoolSize is how many idle connections the shared transport keeps per
// host unless [SizePool] asks for more: at least the concurrency of a worker
// or an eval (each in-flight call holds one connection; with fewer kept idle
// than there are callers, every wave of calls opens new TCP connections again
// — 32–52 % of calls did with the 16 kept before).
const defaultPoolSize = 1024

var pool struct {
	sync.Mutex
	t    *http.Transport
	size int
}

// SizePool makes the shared transport keep at least n idle connections per
// host: a worker or eval that runs n calls at once calls it before it builds
// its workflows. A larger n replaces the transport for the clients made after
// (those made before keep theirs); a smaller one changes nothing.
func SizePool(n int) {
	pool.Lock()
	defer pool.Unlock()
	if pool.t == nil || n > pool.size {
		pool.t, pool.size = newTransport(max(n, defaultPoolSize)), max(n, defaultPoolSize)
	}
}

// sharedTransport is the process's transport for model calls.
func sharedTransport() *http.Transport {
	pool.Lock()
	defer pool.Unlock()
	if pool.t == nil {
		pool.t, pool.size = newTransport(defaultPoolSize), defaultPoolSize
	}
	return pool.t
}

// newTransport keeps idle connections per host (and in all), with bounded
// dial and TLS handshake times, and HTTP/2 where a TLS server offers it
// (ALPN), one connection then carrying many calls.
func newTransport(idlePerHost int) *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          0, // no limit in all: the per-host limit bounds each server's share
		MaxIdleConnsPerHost:   idlePerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
