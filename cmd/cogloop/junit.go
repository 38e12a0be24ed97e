package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cogloop/cogloop"
)

// JUnit XML, the shape CI systems read: one testsuite, one testcase per
// dataset line × repeat.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// maxJUnitAnswer bounds the answer kept in a test case's system-out.
const maxJUnitAnswer = 4 << 10

// writeJUnit writes the eval's results as JUnit XML to path: a run whose
// assertions failed is a failure, a failed run an error, a run not finished
// (interrupted) skipped; each names its reasons.
func writeJUnit(path, workflow string, results []evalResult) error {
	class := strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(filepath.Clean(workflow), filepath.Ext(workflow))), "/", ".")
	s := junitSuite{Name: "cogloop eval " + workflow}
	var total float64
	for _, r := range results {
		name := fmt.Sprintf("line %d", r.Line)
		if r.Name != "" {
			name += " " + r.Name
		}
		if r.Repeat > 0 {
			name += fmt.Sprintf(" #%d", r.Repeat)
		}
		secs := float64(r.DurationMS) / 1000
		total += secs
		c := junitCase{Name: name, Classname: class, Time: fmt.Sprintf("%.3f", secs)}
		reasons := strings.Join(r.Failures, "\n")
		switch {
		case r.Status == statusCanceled || r.Status == statusNotStarted:
			c.Skipped = &junitProblem{Message: "eval was interrupted (" + r.Status + ")"}
			s.Skipped++
		case r.Status != cogloop.StatusOK:
			c.Error = &junitProblem{Message: firstLines(r.Failures[0], 1), Type: "run failed", Text: reasons}
			s.Errors++
		case !r.Pass:
			c.Failure = &junitProblem{Message: fmt.Sprintf("%d assertion(s) failed", len(r.Failures)), Type: "assertion", Text: reasons}
			s.Failures++
		}
		if r.Status != statusNotStarted {
			c.SystemOut = cut(r.Answer, maxJUnitAnswer)
		}
		s.Cases = append(s.Cases, c)
	}
	s.Tests, s.Time = len(s.Cases), fmt.Sprintf("%.3f", total)
	b, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return fmt.Errorf("write --junit %s: %w", path, err)
	}
	if err := os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644); err != nil {
		return fmt.Errorf("write --junit: %w", err)
	}
	return nil
}

// cut keeps at most n bytes of s (on a rune boundary), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
