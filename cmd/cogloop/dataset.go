package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// caseLine is one dataset line: the input of one run and the assertions its
// outcome must satisfy (the line's own, then the dataset's default_assert).
type caseLine struct {
	Line    int
	Name    string
	Input   any
	Asserts []*assertion
}

// maxDatasetBytes bounds the dataset file, maxLineBytes one line of it.
const (
	maxDatasetBytes = 64 << 20
	maxLineBytes    = 4 << 20
)

// lineKeys are the keys of a dataset line.
var lineKeys = []string{"input", "name", "expect", "assert", "default_assert"}

// parseDataset reads JSONL: one object per line, {"input": ..., "assert":
// [...]} (or the short {"expect": {"contains": "..."}}); a line of only
// {"default_assert": [...]} adds assertions to every line. Blank lines are
// skipped. Every bad line is an error naming file:line and the field; all of
// them are reported.
func parseDataset(data []byte, name string) ([]caseLine, error) {
	var out []caseLine
	var defaults []*assertion
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	n := 0
	for sc.Scan() {
		n++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		c, defs, err := parseCase(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n, err))
			continue
		}
		if defs != nil {
			defaults = append(defaults, defs...)
			continue
		}
		c.Line = n
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s:%d: %w (a line is at most %d MiB)", name, n+1, err, maxLineBytes>>20))
	}
	if len(errs) == 0 && len(out) == 0 {
		errs = append(errs, fmt.Errorf("%s: no dataset lines: write one JSON object per line, {\"input\": \"...\"}", name))
	}
	for i := range out {
		out[i].Asserts = append(out[i].Asserts, defaults...)
	}
	return out, errors.Join(errs...)
}

const lineShape = `{"input": "...", "assert": [{"type": "contains", "value": "..."}]}`

// parseCase reads one line: a case, or (defaults != nil) a default_assert line.
func parseCase(raw []byte) (c caseLine, defaults []*assertion, err error) {
	m, err := lineObject(raw)
	if err != nil {
		return c, nil, err
	}
	if d, ok := m["default_assert"]; ok {
		if len(m) != 1 {
			return c, nil, errors.New(`a "default_assert" line has no other fields: it adds its assertions to every line`)
		}
		defaults, err = parseAsserts(d, "default_assert")
		if err == nil && len(defaults) == 0 {
			err = errors.New("default_assert: the list is empty")
		}
		return c, defaults, err
	}
	c, err = readCase(m)
	return c, nil, err
}

// lineObject reads a line as one JSON object of known fields.
func lineObject(raw []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil || m == nil {
		if err == nil || jsonKind(raw) != "an object" {
			return nil, fmt.Errorf("not a dataset line: each line is one JSON object, %s", lineShape)
		}
		return nil, fmt.Errorf("not a dataset line: %s; each line is one JSON object, %s", plainJSONError(err), lineShape)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	for k := range m {
		if !slices.Contains(lineKeys, k) {
			return nil, fmt.Errorf("unknown field %q%s (a line has: %s)", k, didYouMean(k, lineKeys), strings.Join(lineKeys, ", "))
		}
	}
	return m, nil
}

// readCase reads a case's fields: its input, name, and assertions (expect's
// short form first).
func readCase(m map[string]json.RawMessage) (caseLine, error) {
	var c caseLine
	in, ok := m["input"]
	if !ok || jsonKind(in) == "null" {
		return c, fmt.Errorf(`missing "input": %s`, lineShape)
	}
	if err := json.Unmarshal(in, &c.Input); err != nil {
		return c, fmt.Errorf("input: %s", plainJSONError(err))
	}
	if nm, ok := m["name"]; ok && json.Unmarshal(nm, &c.Name) != nil {
		return c, fmt.Errorf("name: needs text, got %s", jsonKind(nm))
	}
	if e, ok := m["expect"]; ok {
		a, err := parseExpect(e)
		if err != nil {
			return c, err
		}
		c.Asserts = append(c.Asserts, a)
	}
	if as, ok := m["assert"]; ok {
		list, err := parseAsserts(as, "assert")
		if err != nil {
			return c, err
		}
		c.Asserts = append(c.Asserts, list...)
	}
	return c, nil
}

func parseAsserts(raw json.RawMessage, field string) ([]*assertion, error) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, fmt.Errorf(`%s: a list of assertions, [{"type": "contains", "value": "..."}], not %s`, field, jsonKind(raw))
	}
	var out []*assertion
	for i, it := range items {
		a, err := parseAssertion(it, fmt.Sprintf("%s[%d]", field, i+1))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// parseExpect reads the short form {"contains"|"equals"|"regex": "..."}.
func parseExpect(raw json.RawMessage) (*assertion, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, fmt.Errorf(`expect: an object such as {"contains": "..."}, not %s`, jsonKind(raw))
	}
	if len(m) != 1 {
		return nil, fmt.Errorf(`expect needs exactly one of "contains", "equals", "regex", got %d`, len(m))
	}
	for k, v := range m {
		if k != "contains" && k != "equals" && k != "regex" {
			return nil, fmt.Errorf(`expect: unknown field %q (expect takes one of "contains", "equals", "regex"; other checks go in "assert")`, k)
		}
		obj, _ := json.Marshal(map[string]json.RawMessage{"type": json.RawMessage(fmt.Sprintf("%q", k)), "value": v})
		a, err := parseAssertion(obj, "expect")
		if err != nil {
			return nil, errors.New(strings.Replace(err.Error(), "expect.value", "expect."+k, 1))
		}
		return a, nil
	}
	return nil, nil
}
