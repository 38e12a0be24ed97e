package prompt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins/methods"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// strMethods are the Python str methods prompts may call ("x".upper(), ...).
// encode is left out (it returns bytes).
var strMethods = []string{
	"capitalize", "capwords", "casefold", "center", "count", "endswith", "expandtabs",
	"find", "format", "format_map", "isalnum", "isalpha", "isascii", "isdecimal",
	"isdigit", "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper",
	"join", "ljust", "lower", "lstrip", "partition", "removeprefix", "removesuffix",
	"replace", "rfind", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
	"startswith", "strip", "swapcase", "title", "upper", "zfill",
}

func buildMethods() exec.Methods {
	str := map[string]exec.Method[string]{}
	for _, name := range strMethods {
		m, ok := methods.All.Str.Get(name)
		if !ok {
			panic(fmt.Sprintf("prompt: gonja has no str.%s method", name))
		}
		str[name] = guardStrMethod(name, m)
	}
	listCopy, ok := methods.All.List.Get("copy")
	if !ok {
		panic("prompt: gonja has no list.copy method")
	}
	list := map[string]exec.Method[[]any]{
		"append":  listAppend,
		"reverse": listReverse,
		"copy":    listCopy,
	}
	return exec.Methods{
		Bool:  methods.All.Bool,
		Int:   methods.All.Int,
		Float: methods.All.Float,
		// Dict methods receive a converted copy of the mapping: they cannot change data.
		Dict: methods.All.Dict,
		Str:  exec.NewMethodSet(str),
		List: exec.NewMethodSet(list),
	}
}

// guardStrMethod bounds the string a method builds: padding widths, format
// widths, and a result no larger than max(the input, DefaultMaxOutput).
func guardStrMethod(name string, m exec.Method[string]) exec.Method[string] {
	return func(self string, selfValue *exec.Value, va *exec.VarArgs) (any, error) {
		if err := preCheckStrMethod(name, self, va); err != nil {
			return nil, fmt.Errorf("str.%s: %w", name, err)
		}
		out, err := m(self, selfValue, va)
		if err != nil {
			return nil, err
		}
		if s, ok := out.(string); ok && len(s) > max(len(self), DefaultMaxOutput) {
			return nil, fmt.Errorf("%w: str.%s result is %d bytes", ErrLimit, name, len(s))
		}
		return out, nil
	}
}

func preCheckStrMethod(name, self string, va *exec.VarArgs) error {
	switch name {
	case "center", "ljust", "rjust", "zfill":
		if len(va.Args) > 0 && va.Args[0].IsInteger() {
			return checkWidth(va.Args[0].Integer(), "width")
		}
	case "expandtabs":
		if len(va.Args) > 1 && va.Args[1].IsInteger() {
			return checkWidth(va.Args[1].Integer()*strings.Count(self, "\t"), "expanded tabs")
		}
	case "replace":
		if len(va.Args) >= 2 {
			n := strings.Count(self, va.Args[0].String())
			grow := max(len(va.Args[1].String())-len(va.Args[0].String()), 0)
			if len(self)+n*grow > max(len(self), DefaultMaxOutput) {
				return fmt.Errorf("%w: replaced string would be %d bytes", ErrLimit, len(self)+n*grow)
			}
		}
	case "join":
		if len(va.Args) == 1 && va.Args[0].IsList() {
			if n := va.Args[0].Len(); n > 1 && (n-1)*len(self) > DefaultMaxOutput {
				return fmt.Errorf("%w: joined string would be %d bytes", ErrLimit, (n-1)*len(self))
			}
		}
	case "format", "format_map":
		return checkFormatWidths(self)
	}
	return nil
}

// checkFormatWidths rejects str.format fields with widths or precisions above
// maxWidth ("{:>1000000}").
func checkFormatWidths(s string) error {
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			if depth > 0 {
				depth--
				if depth == 0 {
					if err := checkDigits(s[start:i]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func checkDigits(field string) error {
	for i := 0; i < len(field); {
		if field[i] < '0' || field[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(field) && field[j] >= '0' && field[j] <= '9' {
			j++
		}
		if n, err := strconv.Atoi(field[i:j]); err != nil || n > maxWidth {
			return fmt.Errorf("%w: format field %q has a width over %d", ErrLimit, field, maxWidth)
		}
		i = j
	}
	return nil
}

// listAppend is list.append(x). gonja hands methods a fresh copy of the list, so
// appending never writes into the caller's data; the template variable that
// held the list (when the call is name.append(x)) takes the new list.
func listAppend(self []any, selfValue *exec.Value, va *exec.VarArgs) (any, error) {
	if len(va.Args) != 1 || len(va.KwArgs) != 0 {
		return nil, fmt.Errorf("append() takes exactly one argument (%d given)", len(va.Args)+len(va.KwArgs))
	}
	if err := checkItems(len(self)+1, "list"); err != nil {
		return nil, err
	}
	out := make([]any, len(self), len(self)+1)
	copy(out, self)
	out = append(out, unval(va.Args[0]))
	*selfValue = *exec.AsValue(out)
	return nil, nil
}

// listReverse is list.reverse(), on a copy (see listAppend).
func listReverse(self []any, selfValue *exec.Value, va *exec.VarArgs) (any, error) {
	if len(va.Args) != 0 || len(va.KwArgs) != 0 {
		return nil, fmt.Errorf("reverse() takes no arguments")
	}
	out := make([]any, len(self))
	for i, v := range self {
		out[len(self)-1-i] = v
	}
	*selfValue = *exec.AsValue(out)
	return nil, nil
}
