package memory

import "errors"

// Sentinel errors. Stores wrap them with %w and add the operation (and, for
// networked stores, the server address), so callers test with [errors.Is].
var (
	// ErrInvalid reports a bad argument: an empty or over-long id, a prefix or
	// namespace outside [A-Za-z0-9_.-], an entry without run id, an
	// iteration below 1, entry data that is not JSON. Retrying cannot help;
	// the CLI maps it to a usage error.
	ErrInvalid = errors.New("invalid argument")

	// ErrUnavailable reports that the backing server could not be reached or
	// did not answer, after the store's retries. The write or read named in
	// the error did not take effect (or its effect is unknown but harmless
	// to repeat: every Store operation is idempotent).
	ErrUnavailable = errors.New("memory store unavailable")

	// ErrDigestMismatch reports a checkpoint save for a run whose stored
	// checkpoint was written by a workflow with a different digest.
	ErrDigestMismatch = errors.New("checkpoint belongs to a different workflow")

	// ErrClosed reports an operation on a closed store.
	ErrClosed = errors.New("memory store closed")
)
