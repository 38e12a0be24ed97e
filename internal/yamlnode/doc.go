// Package yamlnode owns the small readings of yaml.v3 nodes that every
// workflow and preset reader shares: following aliases and naming a node's
// kind in messages. It imports no project package.
//
// # Imports
//
// It imports no project package.
package yamlnode
