package brain

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Skill types, OrKa's SkillType values.
const (
	Procedural  = "procedural"
	Recipe      = "execution_recipe"
	AntiPattern = "anti_pattern"
	GraphPath   = "graph_path"
)

// Skill is one learned skill.
type Skill struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Type        string         `json:"skill_type"`
	Description string         `json:"description"`
	Steps       []string       `json:"steps"`
	Tags        []string       `json:"tags"`
	Domain      string         `json:"domain"`
	Task        string         `json:"task"`
	Confidence  float64        `json:"confidence"`
	SuccessRate float64        `json:"success_rate"`
	UsageCount  int            `json:"usage_count"`
	Transfers   []Transfer     `json:"transfers,omitempty"`
	Recipe      map[string]any `json:"recipe,omitempty"`
	AntiSignals []string       `json:"anti_signals,omitempty"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

// Transfer is one recorded application of a skill in another context.
type Transfer struct {
	Domain      string         `json:"domain"`
	Task        string         `json:"task"`
	Success     bool           `json:"success"`
	Adaptations map[string]any `json:"adaptations,omitempty"`
	At          time.Time      `json:"at"`
}

// recordUsage updates the usage statistics after an application: success
// grows confidence by 5% of what is missing, failure takes 10% away.
func (s *Skill) recordUsage(success bool, now time.Time) {
	s.UsageCount++
	total := s.SuccessRate * float64(s.UsageCount-1)
	if success {
		total++
		s.Confidence = min(1, s.Confidence+0.05*(1-s.Confidence))
	} else {
		s.Confidence = max(0, s.Confidence-0.1*s.Confidence)
	}
	s.SuccessRate = total / float64(s.UsageCount)
	s.UpdatedAt = now
}

// transferRate is the success rate of recorded transfers, 0.5 without any.
func (s *Skill) transferRate() float64 {
	if len(s.Transfers) == 0 {
		return 0.5
	}
	n := 0
	for _, t := range s.Transfers {
		if t.Success {
			n++
		}
	}
	return float64(n) / float64(len(s.Transfers))
}

// text is what a skill is found by.
func (s *Skill) text() string {
	return strings.Join(append([]string{s.Name, s.Description, s.Task, s.Domain, strings.Join(s.Tags, " ")}, s.Steps...), "\n")
}

// Episode is one recorded task execution.
type Episode struct {
	ID              string    `json:"id"`
	Input           string    `json:"task_input"`
	Domain          string    `json:"task_domain"`
	Task            string    `json:"task"`
	Model           string    `json:"model"`
	Success         bool      `json:"success"`
	Quality         float64   `json:"quality_score"`
	Summary         string    `json:"outcome_summary"`
	WhatWorked      []string  `json:"what_worked"`
	WhatFailed      []string  `json:"what_failed"`
	FailureAnalysis string    `json:"failure_analysis"`
	Lessons         []string  `json:"lessons"`
	Agents          []any     `json:"agents"`
	Strategy        string    `json:"strategy"`
	TokensUsed      int       `json:"tokens_used,omitempty"`
	LatencyMS       int       `json:"latency_ms,omitempty"`
	At              time.Time `json:"timestamp"`
}

func (e *Episode) text() string {
	return strings.Join([]string{e.Input, e.Task, e.Domain, e.Summary, strings.Join(e.Lessons, " "),
		strings.Join(e.WhatWorked, " "), strings.Join(e.WhatFailed, " "), e.FailureAnalysis}, "\n")
}

// digest is a short stable id from parts.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// skillID is the id of the skill of type typ named name.
func skillID(typ, name string) string { return digest(typ, name) }

// slug is s in lower case with runs of other characters made one "-", at
// most n characters.
func slug(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= n {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// actionVerbs start the sentences a procedure is abstracted from.
var actionVerbs = []string{
	"analyze", "analyse", "assess", "break", "build", "check", "classify", "collect", "combine", "compare",
	"compute", "confirm", "create", "decide", "define", "design", "detect", "determine", "draft", "evaluate",
	"examine", "execute", "explain", "extract", "filter", "find", "gather", "generate", "group", "identify",
	"implement", "inspect", "investigate", "isolate", "list", "map", "measure", "merge", "monitor", "organize",
	"outline", "plan", "prioritize", "rank", "refine", "reproduce", "research", "review", "search", "select",
	"sort", "split", "structure", "summarize", "synthesize", "test", "trace", "validate", "verify", "write",
}

// abstractSteps turns a reasoning text into at most 8 abstract steps: each
// sentence of 20 characters or more that starts with (or contains) an action
// verb becomes "<verb> [component/entity]" (or "<verb> [target]").
func abstractSteps(text string) []string {
	var out []string
	for _, sent := range strings.Split(strings.ReplaceAll(text, "\n", ". "), ". ") {
		sent = strings.TrimSpace(sent)
		if len(sent) < 20 {
			continue
		}
		first := strings.ToLower(strings.Trim(strings.Fields(sent)[0], ":.,-*#0123456789)"))
		if step := sentenceStep(first, strings.ToLower(sent)); step != "" {
			out = append(out, step)
		}
		if len(out) >= 8 {
			break
		}
	}
	return out
}

func sentenceStep(first, lower string) string {
	for _, v := range actionVerbs {
		if first == v {
			return v + " [component/entity]"
		}
	}
	for _, v := range actionVerbs {
		if strings.Contains(lower, v) {
			return v + " [target]"
		}
	}
	return ""
}
