package spend_test

import (
	"errors"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mapJournal keeps commits in a map; fail makes Commit fail.
type mapJournal struct {
	m    map[string]spend.Usage
	log  []int
	fail bool
}

func (j *mapJournal) Committed(key string) (spend.Usage, bool) {
	u, ok := j.m[key]
	return u, ok
}

func (j *mapJournal) Commit(key string, u spend.Usage) error {
	if j.fail {
		return errors.New("store down")
	}
	j.m[key] = u
	j.log = append(j.log, u.Total())
	return nil
}

func TestBudgetJournal(t *testing.T) {
	j := &mapJournal{m: map[string]spend.Usage{"loop:l": {PromptTokens: 40, CompletionTokens: 40}}}
	root := spend.NewBudget(spend.Limit{}, nil).WithJournal(j)
	loop := root.ChildAt("loop:l", spend.Limit{MaxTokens: 100, Name: "loop \"l\""})
	assert.Equal(t, 80, loop.Spent().Total(), "a keyed scope opens with what it had committed")

	res, err := loop.Reserve("", spend.Usage{PromptTokens: 5, CompletionTokens: 10})
	require.NoError(t, err)
	assert.Equal(t, []int{95}, j.log, "before the call: spent and reserved")
	res.Settle(spend.Usage{PromptTokens: 5, CompletionTokens: 5})
	assert.Equal(t, []int{95, 90}, j.log, "after the call: what was spent")

	_, err = loop.Reserve("", spend.Usage{PromptTokens: 5, CompletionTokens: 10})
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "the restored spending counts against the limit")

	j.fail = true
	small := root.ChildAt("loop:m", spend.Limit{MaxTokens: 100})
	_, err = small.Reserve("", spend.Usage{PromptTokens: 1, CompletionTokens: 1})
	require.Error(t, err)
	assert.True(t, fault.IsFatal(err), "an unrecorded reservation stops the run")
	assert.Contains(t, err.Error(), "store down")
	assert.Zero(t, small.Spent().Total())

	unlimited := root.ChildAt("loop:n", spend.Limit{})
	_, err = unlimited.Reserve("", spend.Usage{PromptTokens: 1})
	require.NoError(t, err, "scopes without a limit record nothing")
}
