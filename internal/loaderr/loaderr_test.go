package loaderr

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

type prob string

func (p prob) Error() string { return string(p) }

func TestMessage(t *testing.T) {
	assert.Equal(t, "a", Message("problems", []prob{"a"}, nil))
	assert.Equal(t, "2 problems in x:\na\nb\nwarning: w", Message("problems in x", []prob{"a", "b"}, []prob{"w"}))
	assert.Equal(t, "", Message[prob]("problems", nil, nil))
}

func TestUnwrap(t *testing.T) {
	errs := Unwrap([]prob{"a", "b"})
	var p prob
	assert.True(t, errors.As(errors.Join(errs...), &p))
	assert.Equal(t, prob("a"), p)
	assert.Len(t, errs, 2)
}
