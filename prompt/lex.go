package prompt

import (
	"reflect"
	"regexp"
	"strings"
	"sync"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// lexAll is gonja's tokens.LexAll without its per-call cost: LexAll builds a
// lexer whose two raw-block regexps ({% raw %} and {% comment %} ends) are
// compiled for every template, an eighth of `cogloop validate`'s work on
// a large workflow. lexAll shares one compiled pair per block-start string and
// fills the lexer's unexported collection fields as NewLexer and LexAll do,
// then runs gonja's own state machine: the tokens are LexAll's (lex_test.go
// compares both on every template of the repository; gonja_layout_test.go
// pins the fields). n is the number of tokens lexed, whitespace included.
// COGLOOP_PERF_OFF=lexall runs tokens.LexAll itself.
func lexAll(input string, cfg *config.Config) (st *tokens.Stream, n int) {
	if plainLex {
		return lexPlain(input, cfg)
	}
	in := strings.ReplaceAll(input, "\r\n", "\n") // gonja's normalizeInput
	in = strings.ReplaceAll(in, "\r", "\n")
	if !cfg.KeepTrailingNewline && strings.HasSuffix(in, "\n") {
		in = in[:len(in)-1]
	}
	l := &tokens.Lexer{Input: in, Config: cfg, Tokens: make(chan *tokens.Token), RawControlStructures: rawEnds(cfg)}
	est := len(in)/3 + 16 // LexAll's estimate
	collected := make([]*tokens.Token, 0, est)
	lx := lexerFieldsOf()
	lx.set(l, lx.lineOffsets, tokens.PrecomputeLineOffsets(in))
	lx.set(l, lx.collected, collected)
	lx.set(l, lx.tokenSlab, make([]tokens.Token, est))
	l.Run() // collects instead of sending, then closes the unused channel
	toks := *(*[]*tokens.Token)(lx.addr(l, lx.collected))
	return tokens.NewStream(toks), len(toks)
}

// rawEnds returns the shared raw-block regexps for cfg's block start (the
// lexer only reads them).
func rawEnds(cfg *config.Config) map[string]*regexp.Regexp {
	if v, ok := rawEndsCache.Load(cfg.BlockStartString); ok {
		return v.(map[string]*regexp.Regexp)
	}
	var m map[string]*regexp.Regexp = tokens.NewLexer("", cfg).RawControlStructures
	v, _ := rawEndsCache.LoadOrStore(cfg.BlockStartString, m)
	return v.(map[string]*regexp.Regexp)
}

var rawEndsCache sync.Map // block start string → the lexer's raw-end regexps

// lexerFields are the offsets of tokens.Lexer's unexported fields lexAll sets.
type lexerFields struct {
	lineOffsets, collected, tokenSlab reflect.StructField
}

var lexerFieldsOf = sync.OnceValue(func() lexerFields {
	t := reflect.TypeFor[tokens.Lexer]()
	field := func(name string, want reflect.Type) reflect.StructField {
		f, ok := t.FieldByName(name)
		if !ok || f.Type != want {
			panic("prompt: gonja's tokens.Lexer has no field " + name + " of type " + want.String())
		}
		return f
	}
	return lexerFields{
		lineOffsets: field("lineOffsets", reflect.TypeFor[[]int]()),
		collected:   field("collected", reflect.TypeFor[[]*tokens.Token]()),
		tokenSlab:   field("tokenSlab", reflect.TypeFor[[]tokens.Token]()),
	}
})

func (lexerFields) addr(l *tokens.Lexer, f reflect.StructField) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(l), f.Offset)
}

func (lx lexerFields) set(l *tokens.Lexer, f reflect.StructField, v any) {
	reflect.NewAt(f.Type, lx.addr(l, f)).Elem().Set(reflect.ValueOf(v))
}

// lexPlain is lexAll the plain way: gonja's tokens.LexAll. Its stream does not
// tell how many tokens it holds, so n is LexAll's own estimate (the caller
// uses n as a capacity only).
func lexPlain(input string, cfg *config.Config) (*tokens.Stream, int) {
	return tokens.LexAll(input, cfg), len(input)/3 + 16
}
