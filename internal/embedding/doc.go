// Package embedding owns cogloop's one Embedder interface: a text in, a
// vector out. memory (vector search of memories) and cognition (the
// agreement fallback of loop scoring) name it by alias, so one embedder, such
// as types/llm's, serves both. It imports no project package.
//
// # Imports
//
// It imports no project package.
package embedding
