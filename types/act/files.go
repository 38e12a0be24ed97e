package act

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// DefaultMaxFileBytes caps a read_file read and a write_file write.
const DefaultMaxFileBytes = 1 << 20

// ReadFile is the read_file agent type: it reads one file under Root. Its
// response is the file's text; its fields are path and bytes. A file larger
// than MaxBytes is refused.
type ReadFile struct {
	ID string
	// Root is the directory paths are resolved in; nothing outside it is read.
	Root string
	// Path renders the path (relative to Root); nil means the argument path.
	Path     *prompt.Template
	MaxBytes int64
}

// WriteFile is the write_file agent type: it writes one file under Root,
// creating its parent directories inside Root. Its response says what it
// wrote; its fields are path and bytes.
type WriteFile struct {
	ID   string
	Root string
	// Path and Content render the path and the text; nil means the
	// arguments path and content.
	Path, Content *prompt.Template
	MaxBytes      int64
}

var (
	_ agents.Agent = (*ReadFile)(nil)
	_ agents.Agent = (*WriteFile)(nil)
)

func readRoot(c *load.Config) string {
	root := c.String("root", "")
	if !c.Recording() && strings.TrimSpace(root) == "" {
		c.Errorf("", "root is required: the directory the tool may use (relative to the workflow file); paths outside it are refused")
	}
	return resolveDir(c, root)
}

func readFileFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &ReadFile{ID: c.String("id", "")}
	a.Root = readRoot(c)
	a.Path = b.Template(c, "path")
	a.MaxBytes = int64(c.Int("max_bytes", DefaultMaxFileBytes, 1, 1<<30))
	return a, nil
}

func writeFileFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &WriteFile{ID: c.String("id", "")}
	a.Root = readRoot(c)
	a.Path = b.Template(c, "path")
	a.Content = b.Template(c, "content")
	a.MaxBytes = int64(c.Int("max_bytes", DefaultMaxFileBytes, 1, 1<<30))
	return a, nil
}

// renderArg renders t, or reads the call argument name when t is nil.
func renderArg(in agents.Input, t *prompt.Template, name string) (string, error) {
	if t != nil {
		s, err := in.Render(t)
		if err != nil {
			return "", fmt.Errorf("render %s: %w", name, err)
		}
		return s, nil
	}
	s, ok := arg(in, name)
	if !ok {
		return "", fmt.Errorf("no %s: give the argument %s (args.%s) or set %s in the agent", name, name, name, name)
	}
	return s, nil
}

// relPath checks a path the tool was given: relative, and clean of NUL.
func relPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", errors.New("the path is empty")
	case strings.IndexByte(p, 0) >= 0:
		return "", errors.New("the path holds a NUL byte")
	case filepath.IsAbs(p):
		return "", fmt.Errorf("path %q is absolute: give a path relative to the root", clip(p, 200))
	}
	return filepath.Clean(p), nil
}

// openRoot opens root; an escaping path is reported plainly.
func openRoot(root string) (*os.Root, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open root %q: %w", root, err)
	}
	return r, nil
}

func refused(p string, err error) error {
	if strings.Contains(err.Error(), "escapes") {
		return fmt.Errorf("path %q is refused: it leaves the root (through .. or a symlink)", clip(p, 200))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %q: %w", pe.Op, clip(p, 200), pe.Err)
	}
	return err
}

// Run reads the file.
func (a *ReadFile) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	p, err := renderArg(in, a.Path, "path")
	if err != nil {
		return agents.Output{}, err
	}
	if p, err = relPath(p); err != nil {
		return agents.Output{}, err
	}
	root, err := openRoot(a.Root)
	if err != nil {
		return agents.Output{}, err
	}
	defer func() { _ = root.Close() }()
	f, err := root.Open(p)
	if err != nil {
		return agents.Output{}, refused(p, err)
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return agents.Output{}, fmt.Errorf("path %q is a directory, not a file", clip(p, 200))
	}
	data, err := io.ReadAll(io.LimitReader(f, a.MaxBytes+1))
	if err != nil {
		return agents.Output{}, refused(p, err)
	}
	if int64(len(data)) > a.MaxBytes {
		return agents.Output{}, fmt.Errorf("file %q is larger than max_bytes (%d bytes): refused", clip(p, 200), a.MaxBytes)
	}
	text := in.Run.Scrub(strings.ToValidUTF8(string(data), "\uFFFD"))
	return agents.Output{Prompt: p, Response: text, Fields: map[string]any{"path": filepath.ToSlash(p), "bytes": len(data)}}, nil
}

// Run writes the file.
func (a *WriteFile) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	p, err := renderArg(in, a.Path, "path")
	if err != nil {
		return agents.Output{}, err
	}
	if p, err = relPath(p); err != nil {
		return agents.Output{}, err
	}
	content, err := renderArg(in, a.Content, "content")
	if err != nil {
		return agents.Output{}, err
	}
	if int64(len(content)) > a.MaxBytes {
		return agents.Output{}, fmt.Errorf("content for %q is %d bytes, more than max_bytes (%d): refused", clip(p, 200), len(content), a.MaxBytes)
	}
	if err := ctx.Err(); err != nil {
		return agents.Output{}, err
	}
	root, err := openRoot(a.Root)
	if err != nil {
		return agents.Output{}, err
	}
	defer func() { _ = root.Close() }()
	if dir := filepath.Dir(p); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return agents.Output{}, refused(p, err)
		}
	}
	if err := root.WriteFile(p, []byte(content), 0o644); err != nil {
		return agents.Output{}, refused(p, err)
	}
	slash := filepath.ToSlash(p)
	return agents.Output{Prompt: slash, Response: fmt.Sprintf("wrote %d bytes to %s", len(content), slash),
		Fields: map[string]any{"path": slash, "bytes": len(content)}}, nil
}
