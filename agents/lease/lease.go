package lease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/memory"
)

// DefaultTTL is how long a run's lease lives without renewal: how long
// a run whose process died without releasing it (kill -9 on another host, a
// paused worker) stays refused to others.
const DefaultTTL = 30 * time.Second

// Lease is a run's claim to be the one live process of its run id
// ([memory.Leases]). It is renewed in the background every third of its TTL
// while the run goes on, checked before every model call (agents.Run.Fence) and
// carried by every checkpoint save, which the store refuses when another
// holder took the run over. A nil *Lease fences nothing.
type Lease struct {
	store  memory.Leases
	runID  string
	holder string
	ttl    time.Duration

	mu      sync.Mutex
	renewed time.Time // when the last successful take or renewal began
	lost    error     // set once another holder has the run

	stop chan struct{}
	done chan struct{}
}

// Take takes runID's lease in store for a new holder token
// (host/pid/random) and starts renewing it. A lease held by a process of
// this host that no longer exists is taken over at once; any other live
// lease refuses the run with a [*memory.LeaseHeldError].
func Take(ctx context.Context, store memory.Leases, runID string, ttl time.Duration) (*Lease, error) {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	l := &Lease{store: store, runID: runID, holder: newHolder(), ttl: ttl,
		stop: make(chan struct{}), done: make(chan struct{})}
	began := time.Now()
	err := store.TakeLease(ctx, runID, l.holder, "", ttl)
	var held *memory.LeaseHeldError
	if errors.As(err, &held) && deadHere(held.Holder) {
		began = time.Now()
		err = store.TakeLease(ctx, runID, l.holder, held.Holder, ttl)
	}
	if err != nil {
		return nil, fmt.Errorf("take the lease of run %q: %w", runID, err)
	}
	l.renewed = began
	live.Store(l.holder, true)
	go l.renewLoop()
	return l, nil
}

// live holds the tokens of this process's leases between Take and Release:
// a lease of this process that is not among them belongs to a run that
// ended without releasing it (its store was down), and is stale.
var live sync.Map

// Holder is the lease's token.
func (l *Lease) Holder() string {
	if l == nil {
		return ""
	}
	return l.holder
}

// Check reports whether the process still holds the run: nil while the last
// renewal is younger than half the TTL, otherwise after renewing it now. A
// lease another holder took is a fatal error naming that holder.
func (l *Lease) Check(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	lost, age := l.lost, time.Since(l.renewed)
	l.mu.Unlock()
	if lost != nil {
		return lost
	}
	if age < l.ttl/2 {
		return nil
	}
	return l.renew(ctx)
}

// renew takes the lease again for the same holder; a refusal marks it lost.
func (l *Lease) renew(ctx context.Context) error {
	began := time.Now()
	err := l.store.TakeLease(ctx, l.runID, l.holder, "", l.ttl)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return l.lost
	}
	var held *memory.LeaseHeldError
	switch {
	case errors.As(err, &held):
		l.lost = lostError(l.runID, err)
		return l.lost
	case err != nil:
		if time.Since(l.renewed) < l.ttl {
			return nil // still ours for a while; the next check tries again
		}
		return fault.Fatal(fmt.Errorf("renew the lease of run %q: %w", l.runID, err),
			"make the store reachable again and resume the run (cogloop run --resume RUN_ID)")
	}
	l.renewed = began
	return nil
}

func lostError(runID string, err error) error {
	return fault.Fatal(fmt.Errorf("run %q lost its lease: %w", runID, err),
		"another process runs it now; let that one finish (this process stops before its next model call)")
}

// Lose marks the lease lost after a fenced write was refused, and returns
// the fatal error.
func (l *Lease) Lose(err error) error {
	if l == nil {
		return fault.Fatal(err, "another process runs it now; let that one finish")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == nil {
		l.lost = lostError(l.runID, err)
	}
	return l.lost
}

func (l *Lease) renewLoop() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			err := l.renew(ctx)
			cancel()
			if fault.IsFatal(err) {
				return
			}
		}
	}
}

// Release stops the renewals and frees the lease (when the process still
// holds it), so the run can be resumed at once.
func (l *Lease) Release(ctx context.Context) error {
	if l == nil {
		return nil
	}
	close(l.stop)
	<-l.done
	live.Delete(l.holder)
	if err := l.store.ReleaseLease(ctx, l.runID, l.holder); err != nil {
		return fmt.Errorf("release the lease of run %q: %w", l.runID, err)
	}
	return nil
}

// newHolder is host/pid/random: who holds a run, readable in a refusal.
func newHolder() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b[:])
}

// deadHere reports whether holder names a process of this host that no
// longer exists (killed before it could release its lease), or a run of
// this process that ended without releasing it.
func deadHere(holder string) bool {
	parts := strings.Split(holder, "/")
	if len(parts) != 3 {
		return false
	}
	host, err := os.Hostname()
	if err != nil || parts[0] != host {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		_, ok := live.Load(holder)
		return !ok
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
