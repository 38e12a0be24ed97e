// Package yamlbound bounds what a YAML input may cost before yaml.v3 builds its
// tree: [Count] estimates the number of nodes with one pass over the bytes and
// no allocation, so a huge flat list is refused at a few bytes of heap, and
// [ExpandedSize] counts the nodes of a built tree with every alias expanded, so
// a "billion laughs" document is refused before anything walks it. The
// workflow loader and the scripted-reply parser share them.
//
// Both functions are pure and safe for concurrent use.
//
// # Imports
//
// It imports no project package.
package yamlbound
