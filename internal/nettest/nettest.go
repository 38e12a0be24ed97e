// Package nettest owns the network fixtures more than one package's tests
// need: a loopback address nothing listens on, for the tests of refused
// connections (models, web search, Redis, the CLI). Only tests import it;
// it imports no project package.
//
// # Imports
//
// It imports no project package.
package nettest

import (
	"net"
	"testing"
)

// ClosedAddr returns a loopback host:port that nothing listens on: a port
// the kernel handed out and that was closed again at once.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("close the listener: %v", err)
	}
	return addr
}
