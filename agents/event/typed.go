package event

// Typed readings of the loop events' and run.end's Data. Each accessor
// reports false for an event of another kind; fields the event lacks stay
// zero. They read events as producers emit them and as a run record decodes
// them (numbers as float64).

// LoopStarted is a loop.start event's data.
type LoopStarted struct {
	MaxLoops  int
	Threshold float64
	// ResumedAfter is the pass a resumed loop continues after (0 fresh);
	// History the persisted history entries it starts with.
	ResumedAfter, History int
}

// LoopStarted reads a loop.start event.
func (e Event) LoopStarted() (LoopStarted, bool) {
	if e.Kind != LoopStart {
		return LoopStarted{}, false
	}
	return LoopStarted{MaxLoops: e.whole("max_loops"), Threshold: e.num("threshold"),
		ResumedAfter: e.whole("resumed_after"), History: e.whole("history")}, true
}

// LoopPass is a loop.iteration event's data: one pass ended (Completed) or
// was cut short.
type LoopPass struct {
	Number, MaxLoops int
	Completed        bool
	// Score is the pass's score (ScoreFound false when none was read), Best
	// the best so far, Threshold the loop's.
	Score, Best, Threshold float64
	ScoreFound             bool
	// Stop reports that the loop ends after this pass; Kind is the loop's
	// kind (threshold, until, ...).
	Stop bool
	Kind string
	// AnswerPreview is the pass's answer, truncated.
	AnswerPreview string
	// FailedAgents are the pass's agents that failed; Lessons what cognitive
	// extraction found (category → text), nil when nothing.
	FailedAgents []string
	Lessons      map[string]string
	Attempts     int
	TimedOut     bool
}

// LoopPass reads a loop.iteration event.
func (e Event) LoopPass() (LoopPass, bool) {
	if e.Kind != LoopIteration {
		return LoopPass{}, false
	}
	p := LoopPass{Number: e.whole("loop_number"), MaxLoops: e.whole("max_loops"), Completed: e.flag("completed"),
		Score: e.num("score"), Best: e.num("best"), Threshold: e.num("threshold"), ScoreFound: e.flag("score_found"),
		Stop: e.flag("stop"), Kind: e.text("kind"), AnswerPreview: e.text("answer_preview"),
		Attempts: e.whole("attempts"), TimedOut: e.flag("timed_out")}
	if ids, ok := e.Data["failed_agents"].([]any); ok {
		for _, id := range ids {
			if s, ok := id.(string); ok {
				p.FailedAgents = append(p.FailedAgents, s)
			}
		}
	}
	if ls, ok := e.Data["lessons"].(map[string]any); ok {
		p.Lessons = make(map[string]string, len(ls))
		for k, v := range ls {
			if s, ok := v.(string); ok {
				p.Lessons[k] = s
			}
		}
	}
	return p, true
}

// LoopEnded is a loop.end event's data.
type LoopEnded struct {
	LoopsCompleted int
	// StopReason is why the loop ended (loopnode.StopReason's values).
	StopReason            string
	FinalScore, BestScore float64
	BestIteration         int
	// Failed reports a loop whose end fails the run (no pass has an answer, fail_on).
	Failed bool
}

// LoopEnded reads a loop.end event.
func (e Event) LoopEnded() (LoopEnded, bool) {
	if e.Kind != LoopEnd {
		return LoopEnded{}, false
	}
	return LoopEnded{LoopsCompleted: e.whole("loops_completed"), StopReason: e.text("stop_reason"),
		FinalScore: e.num("final_score"), BestScore: e.num("best_score"),
		BestIteration: e.whole("best_iteration"), Failed: e.flag("failed")}, true
}

// RunStatus reads a run.end event's status (ok, failed, ...).
func (e Event) RunStatus() (string, bool) {
	if e.Kind != RunEnd {
		return "", false
	}
	return e.text("status"), true
}

// num reads a number as producers put it (int, int64, float64) or as JSON
// decodes it (float64); event imports nothing that reads values for it.
func (e Event) num(k string) float64 {
	switch v := e.Data[k].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return 0
}

func (e Event) whole(k string) int { return int(e.num(k)) }

func (e Event) flag(k string) bool { b, _ := e.Data[k].(bool); return b }

func (e Event) text(k string) string { s, _ := e.Data[k].(string); return s }
