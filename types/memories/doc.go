// Package memories owns the memory agent type (type: memory): OrKa's memory
// reader and writer, chosen by config.operation (read, the default, or write),
// and the rag type ([RAG]: retrieve from a namespace, then answer through an
// types/llm model, [llm.Options.Answerer]).
// [Register] adds the types to an [agents.Registry]; the agents keep their
// memories in the run's [memory.Store] ([agents.Run.Memory]), so they work the
// same on the in-memory store and on Redis.
//
// # Writer
//
// A writer stores its rendered prompt (without a prompt: the input text) in its
// namespace (default "default"). metadata is a mapping of templates, rendered
// to text (a list of templates is rendered and joined with ", ", like OrKa's
// tags); category defaults to "stored" and memory_type is short_term or
// long_term, as OrKa classifies them (long_term with decay.default_long_term,
// or an explicit category: stored). key_template renders the memory id, so a
// later write with the same key replaces the memory (a key longer than
// [MaxKeyLen] bytes becomes its SHA-256); without it the id is derived from the
// content and metadata, so the same fact written twice is kept once.
//
// A memory expires after ttl (a duration, a cogloop extension), else after the
// decay lifetime of its memory type: decay: {enabled, default_short_term_hours
// (1), default_long_term_hours (24), short_term_hours, long_term_hours,
// default_long_term} or a memory_preset (sensory, working, episodic, semantic,
// procedural, meta: OrKa's decay hours for each). A decay block is on unless it
// says enabled: false. OrKa lengthens lifetimes by an importance score (×1.5 to
// ×2); cogloop does not. Without ttl or decay a memory lives as long as the
// store keeps memories (memory.Options.MemoryTTL). Creation and expiry times
// come from the writer's clock ([Options.Now], time.Now by default), which
// should be the store's.
//
// The output is {status: success, memory_id (also memory_key), namespace,
// content_length, stored_metadata, vector_enabled, expires_at when set} with
// response "stored <id>".
//
// # Reader
//
// A reader recalls the memories of its namespace that match its rendered
// prompt (without a prompt: the input text), ranked by [memory.Rank]: expired
// ones are dropped; similarity is keyword overlap (the share of the query's
// keywords found in a memory), or, with an embedder, the cosine similarity of
// embeddings; memories below config.similarity_threshold are dropped; the rest
// are ordered by score, newest first among equals, and the first config.limit
// (10) are kept. The default threshold depends on the scale:
// [DefaultKeywordThreshold] (0.2) for keyword overlap, OrKa's 0.6
// ([DefaultVectorThreshold]) for vectors; a threshold of 0 returns the most
// recent memories whatever the query. With config.enable_temporal_ranking the
// score halves every half-life of a memory's age: config.temporal_decay_hours,
// else the long-term lifetime of decay or memory_preset, else 24 hours.
// config.memory_category_filter and config.memory_type_filter (all,
// short_term, long_term) select on the metadata the writer sets.
//
// The output is OrKa's {memories, query, num_results, backend, search_type
// (keyword or vector), namespace}; each memory is {id, content, metadata,
// similarity, score, created_at, expires_at when set}. The response is the
// contents, best first, one per line, and "" when nothing matched, so
// {{ get_agent_response('reader') }} puts the memories into a prompt as text
// and safe_get_response('reader', 'nothing remembered') falls back when there
// are none (OrKa's reader has no response: the helper prints the whole result
// mapping). An empty query recalls nothing and sets error: "No query provided",
// as in OrKa.
//
// # Embeddings
//
// embedder: {provider, model, model_url, api_key_env} (a cogloop extension)
// embeds written contents and reader queries through langchaingo
// ([llm.NewEmbedder]: OpenAI-protocol /v1/embeddings or Ollama /api/embed).
// Embedding calls are bounded by timeout (default 120s) and retried by the
// agent's retry policy (as LLM agents'). Memories written without an embedding
// (or with one of another length) are still matched by keyword overlap, on the
// vector threshold. OrKa's vector: true without an embedder loads with a
// warning.
//
// # OrKa keys
//
// config.enable_context_search, context_weight, context_window_size,
// temporal_weight, ef_runtime, use_hnsw, hybrid_search_enabled,
// disable_memory_logging, decay.check_interval_minutes, memory_type_rules,
// importance_rules and queue load with a warning and do nothing. Keys of the
// other operation (a reader's key_template, a writer's limit) load with a
// warning. memory_preset sets decay hours only (not OrKa's per-preset limits
// and thresholds, which are on OrKa's vector scale).
//
// # Errors
//
// A run without a store fails with [ErrNoStore]. Store and embedder errors
// are the agent's errors (they name the operation and the server); nothing is
// dropped. A writer whose content or key renders empty fails.
//
// # Concurrency
//
// Built agents are immutable and safe for concurrent Run calls.
//
// # Imports
//
// It imports agents, agents/load, agents/retry, agents/secrets,
// internal/pyvalue, memory, prompt and types/llm.
package memories
