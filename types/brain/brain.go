package brain

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop/internal/values"
	"github.com/cogloop/cogloop/memory"
)

// DefaultNamespace is the memory namespace of a brain without namespace:.
const DefaultNamespace = "brain"

// Item kinds, the first part of [memory.BrainID].
const (
	kindSkill   = "skill"
	kindEpisode = "episode"
)

// scan caps the items one recall looks at.
const scan = 1000

// Brain is a skill graph and an episodic memory in one namespace of a store.
type Brain struct {
	Store     memory.Store
	Namespace string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (b *Brain) now() time.Time {
	if b.Now != nil {
		return b.Now().UTC()
	}
	return time.Now().UTC()
}

func (b *Brain) put(ctx context.Context, kind, id, text string, meta map[string]string, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	full := memory.BrainID(kind, id)
	m := map[string]string{"brain_kind": kind, "brain_id": full, "data": string(js)}
	for k, v := range meta {
		m[k] = v
	}
	if err := b.Store.Remember(ctx, b.Namespace, memory.Memory{ID: full, Content: text, Metadata: m}); err != nil {
		return fmt.Errorf("store %s %s in namespace %q: %w", kind, id, b.Namespace, err)
	}
	return nil
}

func (b *Brain) saveSkill(ctx context.Context, s *Skill) error {
	return b.put(ctx, kindSkill, s.ID, s.text(), map[string]string{"skill_type": s.Type, "domain": s.Domain}, s)
}

// Skill returns the skill with id; ok is false when there is none.
func (b *Brain) Skill(ctx context.Context, id string) (s *Skill, ok bool, err error) {
	ms, err := b.Store.Recall(ctx, b.Namespace, memory.Query{Limit: 1,
		Metadata: map[string]string{"brain_id": memory.BrainID(kindSkill, id)}})
	if err != nil || len(ms) == 0 {
		return nil, false, err
	}
	s = &Skill{}
	if err := json.Unmarshal([]byte(ms[0].Memory.Metadata["data"]), s); err != nil {
		return nil, false, fmt.Errorf("skill %s: stored data: %w", id, err)
	}
	return s, true, nil
}

// reinforce saves s, or, when a skill with its id exists, records a usage
// of that one (success or not) and saves it. A new skill is saved only on
// success; otherwise the result is nil.
func (b *Brain) reinforce(ctx context.Context, s *Skill, success bool) (*Skill, error) {
	old, ok, err := b.Skill(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	if ok {
		old.recordUsage(success, b.now())
		return old, b.saveSkill(ctx, old)
	}
	if !success {
		return nil, nil
	}
	s.UsageCount, s.UpdatedAt = 1, b.now()
	if s.Tags == nil {
		s.Tags = []string{}
	}
	if s.Steps == nil {
		s.Steps = []string{}
	}
	return s, b.saveSkill(ctx, s)
}

// Context is where a skill is learned or applied.
type Context struct {
	Domain, Task, Input string
}

func (c Context) domain() string {
	if strings.TrimSpace(c.Domain) == "" {
		return "general"
	}
	return c.Domain
}

// Learn abstracts a procedural skill from steps. Without steps, or from a
// failed outcome, it learns nothing (nil); a skill of the same name is
// reinforced instead.
func (b *Brain) Learn(ctx context.Context, steps []string, c Context, success bool, quality float64, name string) (*Skill, error) {
	if name == "" {
		name = "skill:" + c.domain() + ":" + slug(c.Task, 40)
	}
	if len(steps) == 0 {
		old, ok, err := b.Skill(ctx, skillID(Procedural, name))
		if err != nil || !ok {
			return nil, err
		}
		return b.reinforce(ctx, old, success)
	}
	s := &Skill{ID: skillID(Procedural, name), Name: name, Type: Procedural, Steps: steps,
		Description: fmt.Sprintf("%s procedure in %d steps: %s", c.domain(), len(steps), strings.Join(steps, ", ")),
		Tags:        tags(c.domain(), steps), Domain: c.domain(), Task: c.Task,
		Confidence: min(0.7, 0.5+quality*0.2), SuccessRate: 1}
	return b.reinforce(ctx, s, success)
}

// LearnRecipe stores an agent composition that worked.
func (b *Brain) LearnRecipe(ctx context.Context, agentList []map[string]any, pattern string, c Context, success bool, quality float64, name string) (*Skill, error) {
	if len(agentList) == 0 {
		return nil, nil
	}
	ids := make([]string, len(agentList))
	for i, a := range agentList {
		ids[i] = fmt.Sprint(a["id"])
	}
	if name == "" {
		name = "recipe:" + c.domain() + ":" + pattern + ":" + strings.Join(ids[:min(4, len(ids))], "+")
	}
	s := &Skill{ID: skillID(Recipe, name), Name: name, Type: Recipe, Domain: c.domain(), Task: c.Task,
		Description: fmt.Sprintf("%s recipe for %s: %s", pattern, c.domain(), strings.Join(ids, " → ")),
		Steps:       prefixAll("run ", ids), Tags: []string{"recipe", pattern, c.domain()},
		Confidence: min(0.7, 0.5+quality*0.2), SuccessRate: 1,
		Recipe: map[string]any{"pattern": pattern, "agents": values.List(agentList), "total_agents": len(agentList)}}
	return b.reinforce(ctx, s, success)
}

// LearnAnti records what failed and why; an anti-pattern of the same name is
// reinforced (as a failed usage).
func (b *Brain) LearnAnti(ctx context.Context, whatFailed, why string, c Context, severity string) (*Skill, error) {
	name := "anti:" + c.domain() + ":" + slug(whatFailed, 40)
	id := skillID(AntiPattern, name)
	old, ok, err := b.Skill(ctx, id)
	if err != nil {
		return nil, err
	}
	if ok {
		old.recordUsage(false, b.now())
		return old, b.saveSkill(ctx, old)
	}
	s := &Skill{ID: id, Name: name, Type: AntiPattern, Domain: c.domain(), Task: whatFailed,
		Description: fmt.Sprintf("AVOID: %s. Reason: %s", whatFailed, why), Steps: []string{},
		Tags: []string{"anti-pattern", severity, c.domain()}, Confidence: 0.9, UsageCount: 1,
		AntiSignals: []string{why}, UpdatedAt: b.now()}
	return s, b.saveSkill(ctx, s)
}

// LearnPath stores a path of agents (a graph-scout decision) that worked.
func (b *Brain) LearnPath(ctx context.Context, nodes []string, score float64, c Context, success bool, budget map[string]any) (*Skill, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	name := "path:" + c.domain() + ":" + strings.Join(nodes[:min(4, len(nodes))], "→")
	recipe := map[string]any{"pattern": "graphscout-path", "agents": idList(nodes), "total_agents": len(nodes), "graphscout_score": score}
	if budget != nil {
		recipe["budget_used"] = budget
	}
	s := &Skill{ID: skillID(GraphPath, name), Name: name, Type: GraphPath, Domain: c.domain(), Task: c.Task,
		Description: fmt.Sprintf("GraphScout path for %s: %s", c.domain(), strings.Join(nodes, " → ")),
		Steps:       prefixAll("execute ", nodes), Tags: []string{c.domain(), "graphscout"},
		Confidence: min(0.8, score), SuccessRate: 1, Recipe: recipe}
	return b.reinforce(ctx, s, success)
}

// Feedback records a transfer of skill id to context c. An unknown id gives
// a nil skill and no error (OrKa logs and goes on).
func (b *Brain) Feedback(ctx context.Context, id string, c Context, success bool, adaptations map[string]any) (*Skill, error) {
	s, ok, err := b.Skill(ctx, id)
	if err != nil || !ok {
		return nil, err
	}
	s.Transfers = append(s.Transfers, Transfer{Domain: c.domain(), Task: c.Task, Success: success, Adaptations: adaptations, At: b.now()})
	s.recordUsage(success, b.now())
	return s, b.saveSkill(ctx, s)
}

// Candidate is a recalled skill with its scores.
type Candidate struct {
	Skill                                    *Skill
	Structural, Semantic, Transfer, Combined float64
	Reasoning                                string
}

// Recall returns the skills that apply to c, best first: at most topK with a
// combined score of at least minScore, of the given types (all when empty)
// and, with domainFilter, of that domain.
func (b *Brain) Recall(ctx context.Context, c Context, topK int, minScore float64, types []string, domainFilter string) ([]Candidate, error) {
	meta := map[string]string{"brain_kind": kindSkill}
	if domainFilter != "" {
		meta["domain"] = domainFilter
	}
	ms, err := b.Store.Recall(ctx, b.Namespace, memory.Query{Text: c.Task + " " + c.Input + " " + c.Domain, Limit: scan, Metadata: meta})
	if err != nil {
		return nil, err
	}
	var out []Candidate
	for _, m := range ms {
		s := &Skill{}
		if json.Unmarshal([]byte(m.Memory.Metadata["data"]), s) != nil {
			continue
		}
		if len(types) > 0 && !slices.Contains(types, s.Type) {
			continue
		}
		structural := 0.5*domainScore(c.domain(), s.Domain) + 0.5*shape(c.Task+" "+c.Input, s)
		semantic := m.Similarity
		if semantic < 0.1 && structural < 0.6 {
			continue
		}
		transfer := s.transferRate()
		combined := 0.35*structural + 0.25*semantic + 0.25*transfer + 0.15*s.Confidence
		if combined < minScore {
			continue
		}
		out = append(out, Candidate{Skill: s, Structural: round(structural), Semantic: round(semantic), Transfer: round(transfer),
			Combined: round(combined), Reasoning: fmt.Sprintf("structural %.2f, semantic %.2f, transfer %.2f, confidence %.2f (learned in %s)",
				structural, semantic, transfer, s.Confidence, s.Domain)})
	}
	slices.SortStableFunc(out, func(x, y Candidate) int {
		return cmp.Or(cmp.Compare(y.Combined, x.Combined), cmp.Compare(x.Skill.Name, y.Skill.Name))
	})
	if topK > 0 && len(out) > topK {
		out = out[:topK]
	}
	return out, nil
}

// RecordEpisode stores e (its id and time are set here).
func (b *Brain) RecordEpisode(ctx context.Context, e *Episode) (*Episode, error) {
	if strings.TrimSpace(e.Domain) == "" {
		e.Domain = "general"
	}
	e.At = b.now()
	e.ID = "ep-" + digest(e.Domain, e.Task, e.Input, e.Summary, strconv.FormatBool(e.Success))
	return e, b.put(ctx, kindEpisode, e.ID, e.text(), map[string]string{"domain": e.Domain, "success": strconv.FormatBool(e.Success)}, e)
}

// EpisodeMatch is a recalled episode with its scores.
type EpisodeMatch struct {
	Episode                                           *Episode
	Semantic, Recency, DomainScore, Outcome, Combined float64
}

// Map is OrKa's shape of a match.
func (m EpisodeMatch) Map() map[string]any {
	return map[string]any{"episode_id": m.Episode.ID, "semantic_score": round(m.Semantic), "recency_score": round(m.Recency),
		"domain_score": round(m.DomainScore), "outcome_relevance": round(m.Outcome), "combined_score": round(m.Combined),
		"task_domain": m.Episode.Domain, "success": m.Episode.Success, "lessons": values.List(m.Episode.Lessons)}
}

// halfLife is the recency half-life of episodes.
const halfLife = 168 * time.Hour

// RecallEpisodes returns the episodes like input and c, best first.
func (b *Brain) RecallEpisodes(ctx context.Context, input string, c Context, topK int, minScore float64, includeFailures bool, domainFilter string) ([]EpisodeMatch, error) {
	meta := map[string]string{"brain_kind": kindEpisode}
	if domainFilter != "" {
		meta["domain"] = domainFilter
	}
	if !includeFailures {
		meta["success"] = "true"
	}
	ms, err := b.Store.Recall(ctx, b.Namespace, memory.Query{Text: input + " " + c.Task, Limit: scan, Metadata: meta})
	if err != nil {
		return nil, err
	}
	now := b.now()
	var out []EpisodeMatch
	for _, m := range ms {
		e := &Episode{}
		if json.Unmarshal([]byte(m.Memory.Metadata["data"]), e) != nil {
			continue
		}
		recency := math.Exp2(-float64(max(0, now.Sub(e.At))) / float64(halfLife))
		dom := 0.5
		if c.Domain != "" && e.Domain != "" {
			dom = 0
			if c.Domain == e.Domain {
				dom = 1
			}
		}
		outcome := 0.3
		if !e.Success {
			outcome = 0.7
		}
		if e.FailureAnalysis != "" {
			outcome = min(1, outcome+0.2)
		}
		if len(e.Lessons) >= 3 {
			outcome = min(1, outcome+0.1)
		}
		combined := 0.5*m.Similarity + 0.2*recency + 0.2*dom + 0.1*outcome
		if combined < minScore {
			continue
		}
		out = append(out, EpisodeMatch{Episode: e, Semantic: m.Similarity, Recency: recency, DomainScore: dom, Outcome: outcome, Combined: combined})
	}
	slices.SortStableFunc(out, func(x, y EpisodeMatch) int {
		return cmp.Or(cmp.Compare(y.Combined, x.Combined), cmp.Compare(x.Episode.ID, y.Episode.ID))
	})
	if topK > 0 && len(out) > topK {
		out = out[:topK]
	}
	return out, nil
}

// Inject formats matches for a prompt, within about maxTokens (4 characters
// a token), as OrKa does; "" when none fits.
func (b *Brain) Inject(matches []EpisodeMatch, maxTokens int) string {
	now := b.now()
	lines := []string{"RELEVANT PAST EXPERIENCE:"}
	total, limit := len(lines[0]), maxTokens*4
	for _, m := range matches {
		block := episodeBlock(m.Episode, now)
		if total+len(block) > limit {
			break
		}
		lines = append(lines, block)
		total += len(block)
	}
	if len(lines) == 1 {
		return ""
	}
	return strings.Join(lines, "\n")
}

func episodeBlock(e *Episode, now time.Time) string {
	age := now.Sub(e.At).Hours()
	var when string
	switch {
	case age < 1:
		when = "just now"
	case age < 24:
		when = fmt.Sprintf("%d hours ago", int(age))
	case age < 720:
		when = fmt.Sprintf("%d days ago", int(age/24))
	default:
		when = fmt.Sprintf("%d months ago", int(age/720))
	}
	status := "SUCCESS"
	if !e.Success {
		status = "FAILED"
	}
	parts := []string{fmt.Sprintf("\n- [%s, %s] %s: %s", when, e.Domain, status, e.Summary)}
	add := func(label string, items []string) {
		if len(items) > 0 {
			parts = append(parts, "  "+label+": "+strings.Join(items, "; "))
		}
	}
	add("Lessons", e.Lessons)
	add("What failed", e.WhatFailed)
	if e.FailureAnalysis != "" {
		parts = append(parts, "  Root cause: "+e.FailureAnalysis)
	}
	add("What worked", e.WhatWorked)
	return strings.Join(parts, "\n")
}

func domainScore(a, b string) float64 {
	switch {
	case a == b:
		return 1
	case a == "general" || b == "general" || b == "":
		return 0.5
	}
	return 0
}

// shape is how much of the task's shape a skill covers: the share of the
// task's action verbs that start one of the skill's steps; for a task
// without action verbs, the word overlap (Jaccard) of the task with the
// skill's task and tags.
func shape(task string, s *Skill) float64 {
	tw := words(task)
	var verbs []string
	for _, v := range actionVerbs {
		if tw[v] {
			verbs = append(verbs, v)
		}
	}
	if len(verbs) == 0 {
		return jaccard(tw, words(s.Task+" "+strings.Join(s.Tags, " ")))
	}
	n := 0
	for _, v := range verbs {
		for _, st := range s.Steps {
			if strings.HasPrefix(st, v+" ") {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(verbs))
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}) {
		if len(w) >= 3 {
			out[w] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

func tags(domain string, steps []string) []string {
	out := []string{domain}
	for _, s := range steps {
		if v, _, _ := strings.Cut(s, " "); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func prefixAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}

func idList(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{"id": id}
	}
	return out
}

func round(f float64) float64 { return math.Round(f*1e4) / 1e4 }
