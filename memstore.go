package cogloop

import (
	"sync"

	"github.com/cogloop/cogloop/memory"
)

// workflowMemory is a Workflow's default store, made on first use: runs of
// one workflow share it (histories, memories, checkpoints for a resume),
// other workflows of the process never see it.
type workflowMemory struct {
	once  sync.Once
	store memory.Store
	err   error
}

func (m *workflowMemory) get() (memory.Store, error) {
	m.once.Do(func() { m.store, m.err = memory.NewInMemory(memory.Options{}) })
	return m.store, m.err
}
