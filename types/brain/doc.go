// Package brain owns OrKa's brain agent type: a skill graph and an episodic
// memory kept in a memory namespace of the run's [memory.Store] (default
// "brain"), with OrKa's operations learn, recall, feedback, learn_recipe,
// learn_anti, learn_path, record_episode and recall_episodes.
//
// # Storage
//
// A skill (procedural, execution_recipe, anti_pattern or graph_path) and an
// episode are each one memory, id [memory.BrainID], content the words it is
// found by, metadata its kind, type, domain and its JSON. Everything goes
// through Remember and Recall, so the in-memory and the Redis store (both
// checked by memory/storetest) hold a brain alike, and a brain outlives the
// run when the store does (--redis).
//
// # Ids and scores
//
// A skill's id is derived from its type and name, so learning a skill of the
// same name again reinforces it (OrKa's record_usage) instead of adding one.
// Recall ranks skills by OrKa's weights: structural 0.35 (the same domain, and the
// share of the task's action verbs the skill's steps start with), semantic 0.25 (keyword overlap, [memory.Rank]), transfer 0.25
// (the success rate of recorded transfers, 0.5 without any) and confidence
// 0.15. Episodes rank by semantic 0.5, recency 0.2 (half-life one week),
// domain 0.2 and outcome 0.1 (failures teach more), as in OrKa.
//
// An [Agent] is immutable and safe for concurrent use; concurrent updates of
// one skill are last-write-wins, as in OrKa.
//
// # Imports
//
// It imports agents, agents/load, agents/retry, internal/pyvalue,
// internal/values, memory and prompt.
package brain
