package secrets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/secrets"
)

const key = "sk-test-0123456789abcdef"

type holder struct {
	Key    secrets.Secret
	hidden secrets.Secret
	Name   string
}

func TestSecretNeverPrintsItsValue(t *testing.T) {
	s := secrets.New(key)
	h := holder{Key: s, hidden: s, Name: "n"}
	hp := &h

	var outs []string
	for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%X", "%d", "%10.3s"} {
		outs = append(outs, fmt.Sprintf(verb, s), fmt.Sprintf(verb, h), fmt.Sprintf(verb, hp))
	}
	outs = append(outs, s.String(), s.GoString(), fmt.Sprint(s), fmt.Sprintln(h))

	j, err := json.Marshal(h)
	require.NoError(t, err)
	outs = append(outs, string(j))
	txt, err := s.MarshalText()
	require.NoError(t, err)
	outs = append(outs, string(txt))
	y, err := yaml.Marshal(h)
	require.NoError(t, err)
	outs = append(outs, string(y))

	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	log.Info("msg", "key", s, "holder", h)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("msg", slog.Any("key", s))
	outs = append(outs, buf.String())

	for _, o := range outs {
		assert.NotContains(t, o, key)
		assert.NotContains(t, o, "0123456789")
	}
	assert.Equal(t, secrets.Redacted, fmt.Sprint(s))
	assert.Contains(t, string(j), `"Key":"[redacted]"`)
	assert.Contains(t, buf.String(), `"key":"[redacted]"`)
	assert.Equal(t, key, s.Reveal(), "Reveal gives the value to the client")
}

func TestSecretZero(t *testing.T) {
	var z secrets.Secret
	assert.True(t, z.IsZero())
	assert.True(t, secrets.New("").IsZero())
	assert.Equal(t, "", z.Reveal())
	assert.False(t, secrets.New("x").IsZero())
}

type pathErr struct{ err error }

func (p *pathErr) Error() string { return "wrapped: " + p.err.Error() }
func (p *pathErr) Unwrap() error { return p.err }

func TestScrub(t *testing.T) {
	s := secrets.New(key)
	assert.Equal(t, "bad key Bearer [redacted] and [redacted]", secrets.Scrub("bad key Bearer "+key+" and "+key, s))
	assert.Equal(t, "nothing here", secrets.Scrub("nothing here", s, secrets.Secret{}))

	plain := errors.New("no secret")
	assert.Same(t, plain, secrets.ScrubError(plain, s), "an error without the secret is returned as is")
	assert.Nil(t, secrets.ScrubError(nil, s))

	inner := &pathErr{err: fmt.Errorf("echo %s: %w", key, context.Canceled)}
	got := secrets.ScrubError(inner, s)
	assert.NotContains(t, got.Error(), key)
	assert.Contains(t, got.Error(), "echo [redacted]")
	assert.ErrorIs(t, got, context.Canceled, "errors.Is still sees the chain")
	var pe *pathErr
	assert.False(t, errors.As(got, &pe), "errors.As must not hand out the unscrubbed error")
	assert.NotErrorIs(t, got, fs.ErrNotExist)
	assert.False(t, strings.Contains(fmt.Sprintf("%+v", got), key))
}

func TestNamedSecretsAndTheRunSet(t *testing.T) {
	long := secrets.NewNamed("OPENAI_API_KEY", "sk-abcdefgh-123")
	inner := secrets.NewNamed("OTHER_KEY", "abcdefgh")
	assert.Equal(t, "OPENAI_API_KEY", long.Name())
	assert.Equal(t, secrets.Redacted, fmt.Sprint(long), "a name changes only what Scrub writes")
	assert.Equal(t, "k=[REDACTED:OPENAI_API_KEY] o=[REDACTED:OTHER_KEY]",
		secrets.Scrub("k=sk-abcdefgh-123 o=abcdefgh", inner, long), "the longer value is replaced whole first")

	var nilRun *agents.Run
	nilRun.AddSecrets(long)
	assert.Equal(t, "sk-abcdefgh-123", nilRun.Scrub("sk-abcdefgh-123"))

	run := &agents.Run{}
	assert.Equal(t, "sk-abcdefgh-123", run.Scrub("sk-abcdefgh-123"), "an empty set scrubs nothing")
	run.AddSecrets(long, long, secrets.New("short"), secrets.Secret{})
	assert.Equal(t, "[REDACTED:OPENAI_API_KEY] short", run.Scrub("sk-abcdefgh-123 short"),
		"values shorter than 8 characters are not scrubbed from replies")
	assert.Equal(t, "[REDACTED:OPENAI_API_KEY] [REDACTED:OTHER_KEY]", run.Scrub("sk-abcdefgh-123 abcdefgh", inner))
}
