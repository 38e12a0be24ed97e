package orchestrator

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents/load"
)

func TestDefaultParametersPerType(t *testing.T) {
	query := queryParameters()
	cases := []struct {
		name, typ, src string
		want           map[string]any
	}{
		{"read_file reads path", "read_file", "root: .", params("path")},
		{"read_file with a path template", "read_file", "path: '{{ args.file }}.txt'", params("file")},
		{"write_file reads path and content", "write_file", "root: .", params("path", "content")},
		{"write_file with a fixed path", "write_file", "path: out.txt", params("content")},
		{"http reads its templates' args", "http", "url: 'http://h/s?q={{ args.q }}&n={{ args.n }}'\nheaders: {X: '{{ args.key }}'}\nbody: '{{ args.q }}'", params("q", "n", "key")},
		{"http without args", "http", "url: http://h/", query},
		{"http reading args another way", "http", "url: 'http://h/?{{ args | urlencode }}'", query},
		{"command reads its argv's args", "command", "command: [wc, -l, '{{ args.file }}']", params("file")},
		{"command without args", "command", "command: [go, test, ./...]", query},
		{"any other type", "duckduckgo", "prompt: '{{ args.x }}'", query},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(tc.src), &doc))
			c := load.NewConfig("wf.yaml", &doc, `agent "t"`, &load.Problems{})
			got := defaultParameters(tc.typ, c)
			assert.Equal(t, tc.want, got)
			_, err := compileSchema(got)
			assert.NoError(t, err)
		})
	}
}

func TestDefaultParametersCheckArguments(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("type: write_file\nroot: .\ndescription: Write."), &doc))
	probs := &load.Problems{}
	td := readToolDef("write_file", load.NewConfig("wf.yaml", &doc, `agent "t"`, probs))
	require.NotNil(t, td.schema)
	_, err := td.check(`{"path": "a.txt", "content": "x"}`)
	assert.NoError(t, err)
	_, err = td.check(`{"query": "a.txt"}`)
	assert.ErrorContains(t, err, "content")
}

func params(names ...string) map[string]any {
	props := map[string]any{}
	req := []any{}
	for _, n := range names {
		props[n] = map[string]any{"type": "string"}
		req = append(req, n)
	}
	return map[string]any{"type": "object", "properties": props, "required": req}
}
