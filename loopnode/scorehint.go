package loopnode

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"go.yaml.in/yaml/v3"
)

// modelTextTypes are the agent types whose output is text a model wrote.
var modelTextTypes = []string{"openai-answer", "local_llm", "llm"}

// hintScoreSources hints (advice, under strict mode too) at a loop whose
// score pattern plainly can match more than one inner agent's output and
// that has no score_from: OrKa's rule then reads the first agent in order,
// so a writer's draft can end the loop. An agent can match when its type is
// a model's and the patterns are OrKa's defaults (they read any decimal
// number), or when the pattern matches its prompt (the prompt asks for that
// text) or one of its scripted responses. workflow_ref loops are not read.
func (n *Node) hintScoreSources(c *load.Config, iw *yaml.Node) {
	if c.Recording() || iw == nil || c.Has("score_from") || c.Has("scoring") || n.scorer == nil {
		return
	}
	defaults := !scorePatternGiven(c)
	var can []string
	for _, a := range innerAgents(iw) {
		if a.canMatch(n.scorer, defaults) {
			can = append(can, a.id)
		}
	}
	if len(can) < 2 {
		return
	}
	why := "its score pattern matches text that their prompts or responses hold"
	if defaults {
		why = "OrKa's default score patterns read any 'SCORE:', percentage or decimal number in a model's reply"
	}
	c.Problems().Hintf(c.Pos(), "%s: the score can come from %s: %s, and OrKa's rule reads the first agent in order that matches (%s), so a draft that says \"SCORE: 1.0\" can end the loop; name the scoring agent with score_from: [%s]",
		c.What(), quotedIDs(can), why, can[0], can[len(can)-1])
}

type innerAgent struct {
	id, typ, prompt string
	responses       []string
}

func (a innerAgent) canMatch(s *scorer.Scorer, defaults bool) bool {
	if a.id == "" {
		return false
	}
	if a.typ == "scripted" {
		return slices.ContainsFunc(a.responses, func(r string) bool { return patternReads(s, a.id, r) })
	}
	if !slices.Contains(modelTextTypes, a.typ) {
		return false
	}
	return defaults || patternReads(s, a.id, a.prompt)
}

// patternReads reports whether the scorer's patterns read a score from text
// as agent id's output.
func patternReads(s *scorer.Scorer, id, text string) bool {
	if text == "" {
		return false
	}
	sc := s.Score([]cognition.Result{{ID: id, Value: text}})
	return sc.Found && sc.Strategy == scorer.StrategyPattern
}

// innerAgents reads the id, type, prompt and scalar scripted responses of
// each agent of an internal_workflow mapping.
func innerAgents(iw *yaml.Node) []innerAgent {
	list := mapValue(iw, "agents")
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	var out []innerAgent
	for _, item := range list.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		a := innerAgent{id: scalar(mapValue(item, "id")), typ: scalar(mapValue(item, "type")), prompt: scalar(mapValue(item, "prompt"))}
		if rs := mapValue(item, "responses"); rs != nil && rs.Kind == yaml.SequenceNode {
			for _, r := range rs.Content {
				a.responses = append(a.responses, scalar(r))
			}
		}
		out = append(out, a)
	}
	return out
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func quotedIDs(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}
