package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/schema"
	"github.com/cogloop/cogloop/schema/schematest"
)

// Each template is written, validates against the schema, and runs offline
// with its replies to exit 0 with the command the README gives.
func TestInitTemplatesRunOffline(t *testing.T) {
	for tmpl := range initTemplates {
		t.Run(tmpl, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "starter")
			code, out, errs := runCLI(t, "init", dir, "--template", tmpl)
			require.Equal(t, exitOK, code, errs)
			_, input, err := starterFiles(tmpl)
			require.NoError(t, err)
			for _, name := range initFiles {
				assert.Contains(t, out, filepath.Join(dir, name))
			}
			wf, err := os.ReadFile(filepath.Join(dir, "workflow.yaml"))
			require.NoError(t, err)
			require.NoError(t, schematest.ValidateYAML(wf))
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			require.NoError(t, err)
			assert.Contains(t, string(readme), "cogloop run workflow.yaml "+input+" --script replies.yaml")
			assert.NotContains(t, string(wf), "examples/", "the workflow's comments point at the new directory")

			unquoted := input[1 : len(input)-1]
			code, out, errs = runCLI(t, "run", filepath.Join(dir, "workflow.yaml"), unquoted,
				"--script", filepath.Join(dir, "replies.yaml"), "--strict")
			require.Equal(t, exitOK, code, errs)
			assert.NotEmpty(t, out)
		})
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(existing, []byte("mine"), 0o644))
	code, _, errs := runCLI(t, "init", dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, existing)
	assert.Contains(t, errs, "refusing to overwrite")
	got, err := os.ReadFile(existing)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(got))
	_, err = os.Stat(filepath.Join(dir, "workflow.yaml"))
	assert.True(t, os.IsNotExist(err), "nothing is written when one file exists")
}

func TestInitUnknownTemplate(t *testing.T) {
	code, _, errs := runCLI(t, "init", t.TempDir(), "--template", "loopp")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `unknown template "loopp" (templates: loop, society, validator)`)
}

func TestSchemaCommandPrintsTheCommittedSchema(t *testing.T) {
	code, out, errs := runCLI(t, "schema")
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, string(schema.Committed), out)
}
