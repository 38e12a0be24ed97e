//go:build !cogloop_core

package jsonschemax

import (
	"slices"
	"testing"
)

func TestCompileValidates(t *testing.T) {
	s, raw, err := Compile(map[string]any{
		"type":     "object",
		"required": []any{"score"},
	}, "urn:test")
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || raw[0] != '{' {
		t.Fatalf("raw = %q, want the schema as JSON", raw)
	}
	if err := s.Validate(map[string]any{"score": 1}); err != nil {
		t.Errorf("valid instance refused: %v", err)
	}
	if err := s.Validate(map[string]any{}); err == nil {
		t.Error("an instance without score passed")
	}
}

func TestCompileErrorLocation(t *testing.T) {
	_, _, err := Compile(map[string]any{
		"type":       "object",
		"properties": map[string]any{"score": map[string]any{"type": "nmber"}},
	}, "urn:test")
	if err == nil {
		t.Fatal("a schema with type nmber compiled")
	}
	if got, want := ErrorLocation(err), []string{"properties", "score", "type"}; !slices.Equal(got, want) {
		t.Errorf("ErrorLocation = %q, want %q", got, want)
	}
}

func TestErrorLocationOfOtherErrors(t *testing.T) {
	if got := ErrorLocation(nil); got != nil {
		t.Errorf("ErrorLocation(nil) = %q", got)
	}
}
