package spend

import (
	"reflect"
	"sync"
)

// folds memoises one pricing table's case-insensitive lookups ([Pricing.Price]
// of names not in the table as written, a scan of the table each) for every
// run priced with that table.
type folds struct {
	table Pricing // held, so that no other table takes its address while here
	id    uintptr
	m     sync.Map // model name → foldedPrice
}

// foldedPrice is a memoised case-insensitive price lookup.
type foldedPrice struct {
	price Price
	ok    bool
}

func (f *folds) price(model string) (Price, bool) {
	if v, ok := f.m.Load(model); ok {
		fp := v.(foldedPrice)
		return fp.price, fp.ok
	}
	var fp foldedPrice
	fp.price, fp.ok = f.table.Price(model)
	f.m.Store(model, fp)
	return fp.price, fp.ok
}

// maxFoldTables bounds the tables whose lookups are kept: a workflow's table
// lives as long as the workflow, and a process runs few workflows at once.
const maxFoldTables = 16

// foldCache holds the folds of the tables used last, the newest last.
var foldCache struct {
	mu     sync.Mutex
	tables []*folds
}

// foldsOf returns the memo of table p, shared by every run priced with the
// same table (tables are immutable once used). A table is known by its
// identity: the memo holds the table, so while the memo is cached no other
// table can have that identity.
func foldsOf(p Pricing) *folds {
	id := uintptr(reflect.ValueOf(p).UnsafePointer())
	foldCache.mu.Lock()
	defer foldCache.mu.Unlock()
	ts := foldCache.tables
	for i := len(ts) - 1; i >= 0; i-- {
		if f := ts[i]; f.id == id {
			if i != len(ts)-1 { // the newest last
				copy(ts[i:], ts[i+1:])
				ts[len(ts)-1] = f
			}
			return f
		}
	}
	f := &folds{table: p, id: id}
	if len(ts) == maxFoldTables {
		copy(ts, ts[1:])
		ts = ts[:len(ts)-1]
	}
	ts = append(ts, f)
	foldCache.tables = ts
	return f
}
