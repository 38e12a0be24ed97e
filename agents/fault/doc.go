// Package fault owns how a failure says where it happened and whether trying
// again can fix it: [PathError] and [AtPath] put a workflow path
// ("loop improve › iteration 3 › agent scorer", parts joined by [JoinPath])
// in front of an error and keep errors.Is working through it; a
// [FatalError] ([Fatal], [IsFatal]) is a failure no retry fixes, carrying
// the fix the user should apply, which ends a run at once. [FromPanic]
// turns a recovered panic into an error with its stack, and [Truncate]
// shortens model output quoted in errors.
//
// # Imports
//
// It imports no project package.
//
// Every package that runs or loads agents imports it.
package fault
