// Package validate owns OrKa's two LLM-judged validator agent types and the
// reading of their answers:
//
//   - loop_validator ([LoopValidator]): asks a model for a true/false verdict
//     on each criterion of a scoring preset (context loop_convergence in loop
//     mode, graphscout in path mode) about a target agent's output, and returns
//     OrKa's validation mapping (validation_score, APPROVED at or above
//     [LoopApproved], the per-criterion booleans), which a loop with boolean
//     scoring weighs with its own preset;
//   - plan_validator ([PlanValidator]): the same for a proposed plan, with
//     scoring_preset and scoring_context chosen per agent.
//
// The model is asked through an agent of package llm ([ModelConfig]), so a
// run's scripted models, retries, timeouts and secret scrubbing work as for
// any LLM agent; answers are read with a lenient parsing ladder (JSON, fenced
// JSON, Python literals, key: value lines) and a reply that cannot be read is
// an error naming the agent. [Register] adds both types to an
// [agents.Registry]; presets come from package scoring.
//
// It imports agents, types/llm and scoring; nothing below cogloop's root
// package imports it.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load, agents/retry,
// agents/secrets, agents/spend, internal/pyvalue, internal/values, prompt,
// scoring and types/llm.
package validate
