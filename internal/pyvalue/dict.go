package pyvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sort"
	"sync"
)

// Dict is a string-keyed mapping in its own key order, as a Python dict keeps
// its insertion order: a read-only view of a map[string]any with the order its
// keys print, iterate and encode in. Neither the Dict nor the map it views
// changes after [NewDict], so one Dict may be shared by any number of readers.
//
// Go code that only looks values up reads [Dict.Map]; templates and printers
// follow [Dict.Keys].
type Dict struct {
	m     map[string]any
	order []string
	once  sync.Once
	keys  []string // made from order on first use
}

// NewDict returns m in this order: the keys of order that m holds, each once,
// then m's other keys sorted. m is viewed, not copied, and neither m nor order
// may change afterwards; the order is worked out on first use, so a Dict
// only looked up in costs no more than its map.
func NewDict(m map[string]any, order []string) *Dict {
	return &Dict{m: m, order: order}
}

// Init makes the zero Dict d what [NewDict](m, order) returns, for a Dict
// that lives inside another value (one allocation for both).
func (d *Dict) Init(m map[string]any, order []string) { d.m, d.order = m, order }

// orderKeys is the key order of m: the keys of order m holds, each once, then
// the others sorted.
func orderKeys(m map[string]any, order []string) []string {
	keys := make([]string, 0, len(m))
	var seen keySet
	for _, k := range order {
		if _, ok := m[k]; ok && seen.add(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) < len(m) {
		rest := make([]string, 0, len(m)-len(keys))
		for k := range m {
			if !seen.has(keys, k) {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		keys = append(keys, rest...)
	}
	return keys
}

// keySet tells which keys a list already holds: by scanning the list while it
// is short, through a map once it is long (so no work is quadratic).
type keySet map[string]bool

// smallKeys is the longest list a keySet scans.
const smallKeys = 16

func (s *keySet) has(list []string, k string) bool {
	if *s == nil {
		return slices.Contains(list, k)
	}
	return (*s)[k]
}

// add reports whether k is new to list, remembering it; the caller appends it.
func (s *keySet) add(list []string, k string) bool {
	if s.has(list, k) {
		return false
	}
	if *s == nil && len(list) >= smallKeys {
		*s = make(keySet, 2*len(list))
		for _, e := range list {
			(*s)[e] = true
		}
	}
	if *s != nil {
		(*s)[k] = true
	}
	return true
}

// Len is the number of keys. A nil *Dict is empty.
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.m)
}

// Keys returns the keys in order; callers must not change the slice.
func (d *Dict) Keys() []string {
	if d == nil {
		return nil
	}
	d.once.Do(func() { d.keys = orderKeys(d.m, d.order) })
	return d.keys
}

// Get returns the value under key.
func (d *Dict) Get(key string) (any, bool) {
	if d == nil {
		return nil, false
	}
	v, ok := d.m[key]
	return v, ok
}

// Map returns the map d views; callers must not change it.
func (d *Dict) Map() map[string]any {
	if d == nil {
		return nil
	}
	return d.m
}

// MarshalJSON encodes d as a JSON object with its keys in order.
func (d *Dict) MarshalJSON() ([]byte, error) {
	if d == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range d.Keys() {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		val, err := json.Marshal(d.m[k])
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Order is the key order of a value's mappings: Keys is the order of the
// value itself when it is a mapping, Sub the order of the value under a key,
// Items the order of each element of a list (by index) and Elem that of the
// elements Items does not cover. A nil *Order says nothing: mappings keep
// sorted order.
type Order struct {
	Keys  []string
	Sub   map[string]*Order
	Items []*Order
	Elem  *Order
}

// item is the order of element i of a list.
func (o *Order) item(i int) *Order {
	if i < len(o.Items) {
		return o.Items[i]
	}
	return o.Elem
}

// Ordered returns v with the mappings o describes as [*Dict]s in o's order:
// a map[string]any becomes a Dict (and the values under o.Sub's keys are
// ordered in turn), a []any a new list of its ordered elements. Values o does
// not describe are returned as they are; nothing v holds is changed, and
// containers are copied only where something inside them is ordered.
func Ordered(v any, o *Order) any { return OrderedAs(v, o, nil) }

// OrderedAs is [Ordered] with each Dict made by mk from a map and its order
// (a template engine's value holding the Dict, see [Dict.Init]); a nil mk
// makes plain Dicts.
func OrderedAs(v any, o *Order, mk func(m map[string]any, order []string) any) any {
	out, _ := ordered(v, o, mk, 0)
	return out
}

// ordered returns v ordered by o, and whether that made a new value.
func ordered(v any, o *Order, mk func(map[string]any, []string) any, depth int) (any, bool) {
	if o == nil || depth > maxDepth {
		return v, false
	}
	switch x := v.(type) {
	case map[string]any:
		m := orderedValues(x, o, mk, depth)
		if mk != nil {
			return mk(m, o.Keys), true
		}
		return NewDict(m, o.Keys), true
	case []any:
		return orderedList(x, o, mk, depth)
	}
	return v, false
}

// orderedValues returns x, or a copy of it with the values under o.Sub's
// keys ordered in turn where that made new values.
func orderedValues(x map[string]any, o *Order, mk func(map[string]any, []string) any, depth int) map[string]any {
	m, copied := x, false
	for k, sub := range o.Sub {
		e, ok := x[k]
		if !ok {
			continue
		}
		oe, changed := ordered(e, sub, mk, depth+1)
		if !changed {
			continue
		}
		if !copied {
			m, copied = make(map[string]any, len(x)), true
			for k2, v2 := range x {
				m[k2] = v2
			}
		}
		m[k] = oe
	}
	return m
}

// orderedList returns x with its elements ordered by o's Items and Elem,
// copied only when an element changed.
func orderedList(x []any, o *Order, mk func(map[string]any, []string) any, depth int) (any, bool) {
	var out []any
	for i, e := range x {
		oe, changed := ordered(e, o.item(i), mk, depth+1)
		if out == nil && changed {
			out = make([]any, len(x))
			copy(out, x[:i])
		}
		if out != nil {
			out[i] = oe
		}
	}
	if out == nil {
		return x, false
	}
	return out, true
}

// maxJSONOrderBytes bounds the text JSONOrder reads.
const maxJSONOrderBytes = 4 << 20

// JSONOrder reads the key order of the objects in the JSON text data (one
// value): what [Ordered] needs to give the decoded value the text's order.
// Duplicate keys keep their first position, as a Python dict does. Text over
// 4 MiB, or text that is not one JSON value, is an error.
func JSONOrder(data []byte) (*Order, error) {
	if len(data) > maxJSONOrderBytes {
		return nil, errors.New("json order: text over 4 MiB")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	o, err := jsonOrder(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("json order: more than one value")
	}
	return o, nil
}

func jsonOrder(dec *json.Decoder, depth int) (*Order, error) {
	if depth > maxDepth {
		return nil, errors.New("json order: nested too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		return jsonObjectOrder(dec, depth)
	case json.Delim('['):
		return jsonArrayOrder(dec, depth)
	}
	return nil, nil
}

// jsonObjectOrder reads an object's members after its '{'.
func jsonObjectOrder(dec *json.Decoder, depth int) (*Order, error) {
	o := &Order{}
	var seen keySet
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		sub, err := jsonOrder(dec, depth+1)
		if err != nil {
			return nil, err
		}
		if seen.add(o.Keys, k) {
			o.Keys = append(o.Keys, k)
		}
		if sub != nil {
			setSub(o, k, sub) // a repeated key: the later value wins, as in decoding
		}
	}
	_, err := dec.Token() // '}'
	return o, err
}

// jsonArrayOrder reads an array's elements after its '['; nil when none of
// them holds an object.
func jsonArrayOrder(dec *json.Decoder, depth int) (*Order, error) {
	o := &Order{}
	someOrder := false
	for dec.More() {
		sub, err := jsonOrder(dec, depth+1)
		if err != nil {
			return nil, err
		}
		o.Items = append(o.Items, sub)
		someOrder = someOrder || sub != nil
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, err
	}
	if !someOrder {
		return nil, nil
	}
	return o, nil
}

func setSub(o *Order, k string, sub *Order) {
	if o.Sub == nil {
		o.Sub = map[string]*Order{}
	}
	o.Sub[k] = sub
}
