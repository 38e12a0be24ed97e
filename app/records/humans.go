package records

import (
	"time"

	"github.com/cogloop/cogloop/agents/event"
)

// Human is one question a run asked a person (a human step, an
// approve_tools call) and its answer, as the record tells it.
type Human struct {
	Path     string    `json:"path"`
	Agent    string    `json:"agent"`
	Kind     string    `json:"kind"`
	Question string    `json:"question"`
	Tool     string    `json:"tool,omitempty"`
	Asked    time.Time `json:"asked"`
	Expires  string    `json:"expires,omitempty"`
	// Answered reports an answer; Answer is its text ("APPROVED", "SCORE:
	// 0.8", ... and the comment), By who gave it, When when the run took
	// it, Waited how long the question waited.
	Answered bool          `json:"answered"`
	Answer   string        `json:"answer,omitempty"`
	Comment  string        `json:"comment,omitempty"`
	By       string        `json:"answered_by,omitempty"`
	When     time.Time     `json:"answered_at,omitzero"`
	Waited   time.Duration `json:"waited_ns,omitempty"`
}

// noteHuman adds a human.wait or human.answer event to s.Humans: a wait
// asked again by a continued run is the same question; an answer fills in
// the latest open question at its path.
func (s *Summary) noteHuman(e event.Event) {
	open := -1
	for i := len(s.Humans) - 1; i >= 0; i-- {
		if s.Humans[i].Path == e.Node && !s.Humans[i].Answered {
			open = i
			break
		}
	}
	str := func(k string) string { v, _ := e.Data[k].(string); return v }
	if e.Kind == event.HumanWait {
		if open < 0 {
			s.Humans = append(s.Humans, Human{Path: e.Node, Agent: e.Agent, Kind: str("kind"), Question: e.Message,
				Tool: str("tool"), Asked: e.Time, Expires: str("expires")})
		}
		return
	}
	if open < 0 {
		s.Humans = append(s.Humans, Human{Path: e.Node, Agent: e.Agent, Kind: str("kind"), Tool: str("tool")})
		open = len(s.Humans) - 1
	}
	h := &s.Humans[open]
	h.Answered, h.Answer, h.Comment, h.By, h.When = true, e.Response, str("comment"), str("answered_by"), e.Time
	if ms, ok := e.Data["waited_ms"].(float64); ok {
		h.Waited = time.Duration(ms) * time.Millisecond
	} else if ms, ok := e.Data["waited_ms"].(int64); ok {
		h.Waited = time.Duration(ms) * time.Millisecond
	}
}

// Waiting is the question the run waits for (its status is waiting), or
// nil.
func (s Summary) Waiting() *Human {
	if s.Status != "waiting" {
		return nil
	}
	for i := len(s.Humans) - 1; i >= 0; i-- {
		if !s.Humans[i].Answered {
			return &s.Humans[i]
		}
	}
	return nil
}
