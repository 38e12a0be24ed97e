package prompt

import (
	"errors"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Missing keys: {{ p.improvments }} where p is a mapping without that key
// renders empty, as in OrKa; RenderChecked also says which key was missing,
// so callers can warn (and fail under strict mode) with a did-you-mean over
// the mapping's keys.

// MissingKey is a lookup of a key that a mapping does not have.
type MissingKey struct {
	// Path is the mapping's path as the template writes it ("p",
	// "previous_outputs.critic").
	Path string
	// Key is the key looked up.
	Key string
	// Keys are the mapping's keys, sorted; nil when the template binds the
	// mapping itself ({% for p in get_past_loops() %}) and its keys are not
	// known here.
	Keys []string
}

// checkedTwin is a template's strict twin, parsed on first use.
type checkedTwin struct {
	once sync.Once
	t    *Template
}

// reMissingAttr reads the path and key of a strict render's undefined
// attribute or item error (cleanMessage's words).
var reMissingAttr = regexp.MustCompile(`undefined (?:attribute|item) "([^"]{1,200})" in ([A-Za-z_][A-Za-z0-9_.]{0,400})$`)

// RenderChecked renders t as [Template.Render] does, and reports the first
// lookup of a key that a mapping of d lacks (nil when none). A lookup guarded
// with "is defined" or default() is not one; nor is a lookup into
// previous_outputs itself (an agent that has not run), into a failed agent's
// error record, or into a value of d that is not a mapping.
func (t *Template) RenderChecked(d Data) (string, *MissingKey, error) {
	if t.plain || t.cfg == nil || t.cfg.StrictUndefined {
		s, err := t.Render(d)
		return s, nil, err
	}
	t.checked.once.Do(func() {
		t.checked.t, _ = Parse(t.name, t.src, Options{Strict: true, MaxOutput: t.maxOut})
	})
	strict := t.checked.t
	if strict == nil {
		s, err := t.Render(d)
		return s, nil, err
	}
	s, err := strict.Render(d)
	if err == nil {
		return s, nil, nil
	}
	miss := missingKeyOf(err, d)
	s, err = t.Render(d)
	return s, miss, err
}

// missingKeyOf reads a strict render's error as a MissingKey, resolving the
// mapping in d; nil when the error is another or the mapping is not found.
func missingKeyOf(err error, d Data) *MissingKey {
	var re *RenderError
	if !errors.As(err, &re) || re.Err == nil {
		return nil
	}
	m := reMissingAttr.FindStringSubmatch(cleanMessage(re.Err))
	if m == nil {
		return nil
	}
	key, path := m[1], m[2]
	path = strings.TrimSuffix(path, "."+key)
	if path == "previous_outputs" || path == "" {
		return nil
	}
	if strings.HasPrefix(path, "previous_outputs.") && (key == "status" || key == "error") {
		return nil // the keys of an error record: reading them is how a template checks for one
	}
	parts := strings.Split(path, ".")
	cur, bound := d.root(parts[0])
	if !bound {
		// a name the template binds (a for target, {% set %}): the lookup is
		// still undefined, its mapping's keys unknown
		return &MissingKey{Path: path, Key: key}
	}
	for _, p := range parts[1:] {
		v, ok := mapGet(cur, p)
		if !ok {
			return nil
		}
		cur = v
	}
	return missingIn(cur, path, key)
}

// root returns the value d binds to a template's top-level name; bound is
// false for a name d does not bind.
func (d Data) root(name string) (v any, bound bool) {
	switch name {
	case "previous_outputs":
		return d.Previous, true
	case "input":
		return d.Input, true
	}
	v, bound = d.Vars[name]
	return v, bound
}

// missingIn is the MissingKey of key read from cur, the mapping at path; nil
// when cur is no mapping, has key, or is an agent's error record.
func missingIn(cur any, path, key string) *MissingKey {
	mm, ok := cur.(map[string]any)
	if !ok {
		return nil
	}
	if _, has := mm[key]; has {
		return nil
	}
	if _, failed := mm["error"]; failed && mm["status"] == "error" {
		return nil // an agent's error record: its failure is reported already
	}
	keys := make([]string, 0, len(mm))
	for k := range mm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return &MissingKey{Path: path, Key: key, Keys: keys}
}
