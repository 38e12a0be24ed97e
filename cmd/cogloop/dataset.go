package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/cognition"
)

// caseLine is one dataset line: the input of one run and what its answer
// must satisfy.
type caseLine struct {
	Line   int
	Input  any
	Expect *expectation
}

// expectation is a dataset line's expect: exactly one of contains, equals,
// regex (Python syntax, time-bounded by cognition's pattern limits).
type expectation struct {
	Contains *string `json:"contains,omitempty"`
	Equals   *string `json:"equals,omitempty"`
	Regex    *string `json:"regex,omitempty"`
	re       *cognition.Pattern
}

// check reports whether answer satisfies e. equals compares with the
// surrounding whitespace of both trimmed.
func (e *expectation) check(answer string) (bool, error) {
	switch {
	case e.Contains != nil:
		return strings.Contains(answer, *e.Contains), nil
	case e.Equals != nil:
		return strings.TrimSpace(answer) == strings.TrimSpace(*e.Equals), nil
	}
	_, ok, err := e.re.Find(answer)
	return ok, err
}

// maxDatasetBytes bounds the dataset file, maxLineBytes one line of it.
const (
	maxDatasetBytes = 64 << 20
	maxLineBytes    = 4 << 20
)

// parseDataset reads JSONL: {"input": ..., "expect": {"contains"|"equals"|"regex": "..."}}
// per line; blank lines are skipped. Every bad line is an error naming its
// number; all of them are reported.
func parseDataset(data []byte, name string) ([]caseLine, error) {
	var out []caseLine
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
		c, err := parseCase(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n, err))
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
	return out, errors.Join(errs...)
}

func parseCase(raw []byte) (caseLine, error) {
	var l struct {
		Input  json.RawMessage `json:"input"`
		Expect *expectation    `json:"expect"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return caseLine{}, fmt.Errorf("not a dataset line: %v (want {\"input\": ..., \"expect\": {\"contains\": \"...\"}})", err)
	}
	if dec.More() {
		return caseLine{}, errors.New("more than one JSON value on the line")
	}
	if len(l.Input) == 0 || string(l.Input) == "null" {
		return caseLine{}, errors.New(`missing "input"`)
	}
	var input any
	if err := json.Unmarshal(l.Input, &input); err != nil {
		return caseLine{}, fmt.Errorf("input: %v", err)
	}
	if e := l.Expect; e != nil {
		given := 0
		for _, p := range []*string{e.Contains, e.Equals, e.Regex} {
			if p != nil {
				given++
			}
		}
		if given != 1 {
			return caseLine{}, fmt.Errorf(`expect needs exactly one of "contains", "equals", "regex", got %d`, given)
		}
		if e.Regex != nil {
			re, err := cognition.Compile(*e.Regex)
			if err != nil {
				return caseLine{}, fmt.Errorf("expect.regex: %v", err)
			}
			e.re = re
		}
	}
	return caseLine{Input: input, Expect: l.Expect}, nil
}
