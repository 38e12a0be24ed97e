package spend

import (
	"fmt"
	"github.com/cogloop/cogloop/agents/fault"
)

// Journal keeps what a run's limited budget scopes have committed, so
// that a resumed run goes on from what the dead one spent instead of from
// zero. agents.Checkpoint is one.
//
// A scope commits before every model call what it has spent and reserved
// (the call's worst case included), and again after the call, so the record
// never falls below what was really spent: a run killed in the middle of a
// call resumes as if the call had used its worst case. A call whose
// reservation cannot be recorded is not made, and the failure is fatal (the
// store has retried already): the run stops, and can resume once the store is
// back.
type Journal interface {
	// Committed returns what the scope named key had committed when the run
	// was saved; ok is false when it had nothing.
	Committed(key string) (u Usage, ok bool)
	// Commit records that the scope named key has committed u.
	Commit(key string, u Usage) error
}

// WithJournal makes the limited scopes of b's run (those opened with
// [Budget.ChildAt], and b itself under key "run") record what they commit in
// j, and restore it when they open; it returns b. Call it on the root scope
// before the run starts.
func (b *Budget) WithJournal(j Journal) *Budget {
	if b == nil || j == nil {
		return b
	}
	b.tree.journal = j
	b.key = "run"
	b.restore()
	return b
}

// ChildAt is [Budget.Child] for a scope that outlives a pass: key names it
// for the run's [Journal] (a loop's or workflow's path), so a resumed
// run restores what it had spent.
func (b *Budget) ChildAt(key string, l Limit) *Budget {
	c := b.Child(l)
	c.key = key
	c.restore()
	return c
}

// restore loads the scope's committed usage from the journal.
func (b *Budget) restore() {
	j := b.tree.journal
	if j == nil || b.key == "" || !b.limit.Limited() {
		return
	}
	if u, ok := j.Committed(b.key); ok {
		b.tree.mu.Lock()
		b.spent = u
		b.tree.mu.Unlock()
	}
}

// commit records the committed usage of every journaled scope from s up;
// the caller holds tree.mu, so records are written in the order of the
// changes they record.
func commit(s *Budget) error {
	j := s.tree.journal
	if j == nil {
		return nil
	}
	for ; s != nil; s = s.parent {
		if s.key == "" || !s.limit.Limited() {
			continue
		}
		if err := j.Commit(s.key, s.spent.Add(s.reserved)); err != nil {
			// The store has retried already; the run stops and can resume.
			return fault.Fatal(fmt.Errorf("record what %s has committed: %w", s.limit.name(), err),
				"make the checkpoint store reachable again and resume the run (cogloop run --resume RUN_ID)")
		}
	}
	return nil
}
