package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestMarkdownLinksTheNotes: a regenerated results.md points at the
// hand-kept notes, which exist, and the committed results.md is what the
// generator writes at its top (so a regenerate loses nothing).
func TestMarkdownLinksTheNotes(t *testing.T) {
	rep := &report{reps: 1, start: time.Now(), loadBefore: "0.1"}
	rep.add(&row{group: "g", name: "n", unit: "µs", samples: []float64{1}})
	md := rep.markdown()
	if !strings.Contains(md, notesLink) {
		t.Fatalf("markdown() lacks the link to %s:\n%s", notesFile, md)
	}
	if _, err := os.Stat(notesFile); err != nil {
		t.Fatalf("the notes results.md links to: %v", err)
	}
	committed, err := os.ReadFile("results.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(committed), notesLink) {
		t.Fatalf("results.md lacks the line the generator writes: %q", notesLink)
	}
}
