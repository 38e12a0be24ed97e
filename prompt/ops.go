package prompt

import (
	"errors"
	"fmt"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cogloop/cogloop/internal/ascii"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// opFunc is the signature of the internal operator functions and of helpers that
// need no per-render data: gonja passes the evaluator and the evaluated arguments.
type opFunc = func(e *exec.Evaluator, va *exec.VarArgs) *exec.Value

func opFunctions() map[string]any {
	return map[string]any{
		opAdd:      opFunc(addOp),
		opMul:      opFunc(mulOp),
		opConcat:   opFunc(concatOp),
		opMod:      opFunc(modOp),
		opPow:      opFunc(powOp),
		opDiv:      opFunc(divOp),
		opFloorDiv: opFunc(floorDivOp),
		opItem:     opFunc(func(e *exec.Evaluator, va *exec.VarArgs) *exec.Value { return itemOp(e, va, false) }),
		opItemStr:  opFunc(func(e *exec.Evaluator, va *exec.VarArgs) *exec.Value { return itemOp(e, va, true) }),
		opTruth:    opFunc(truthOp),
	}
}

func errValue(format string, args ...any) *exec.Value {
	return exec.AsValue(fmt.Errorf(format, args...))
}

func operands(va *exec.VarArgs) (*exec.Value, *exec.Value) {
	if len(va.Args) != 2 {
		return exec.AsValue(nil), exec.AsValue(nil)
	}
	return va.Args[0], va.Args[1]
}

// isInt is an integer that is not a bool.
func isInt(v *exec.Value) bool { return v.IsInteger() }

// addOp is a + b: list concatenation, number addition, or (like gonja) string
// concatenation when either side is a string.
func addOp(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	l, r := operands(va)
	switch {
	case l.IsList():
		if !r.IsList() {
			return errValue("cannot concatenate a list and %s", typeName(r))
		}
		n := l.Len() + r.Len()
		if err := checkItems(n, "list"); err != nil {
			return exec.AsValue(err)
		}
		out := make([]any, 0, n)
		out = append(out, toList(l)...)
		out = append(out, toList(r)...)
		return exec.AsValue(out)
	case l.IsFloat() || r.IsFloat():
		return exec.AsValue(l.Float() + r.Float())
	case l.IsString() || r.IsString():
		return concat(e, pyStr(l), pyStr(r))
	default:
		return exec.AsValue(l.Integer() + r.Integer())
	}
}

func concat(e *exec.Evaluator, a, b string) *exec.Value {
	if err := checkLen(e, len(a)+len(b), "string"); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(a + b)
}

// concatOp is a ~ b.
func concatOp(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	l, r := operands(va)
	return concat(e, pyStr(l), pyStr(r))
}

// mulOp is a * b: number product, or string/list repetition with the count on
// either side (bounded).
func mulOp(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	l, r := operands(va)
	switch {
	case l.IsString() && isInt(r):
		return repeatString(e, l.String(), r.Integer())
	case r.IsString() && isInt(l):
		return repeatString(e, r.String(), l.Integer())
	case l.IsList() && isInt(r):
		return repeatList(l, r.Integer())
	case r.IsList() && isInt(l):
		return repeatList(r, l.Integer())
	case l.IsFloat() || r.IsFloat():
		return exec.AsValue(l.Float() * r.Float())
	default:
		return exec.AsValue(l.Integer() * r.Integer())
	}
}

func repeatString(e *exec.Evaluator, s string, n int) *exec.Value {
	if n <= 0 || s == "" {
		return exec.AsValue("")
	}
	if n > math.MaxInt/len(s) {
		return exec.AsValue(fmt.Errorf("%w: string repeated %d times", ErrLimit, n))
	}
	if err := checkLen(e, len(s)*n, "repeated string"); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(strings.Repeat(s, n))
}

func repeatList(l *exec.Value, n int) *exec.Value {
	items := toList(l)
	if n <= 0 || len(items) == 0 {
		return exec.AsValue([]any{})
	}
	if n > maxItems || len(items)*n > maxItems {
		return exec.AsValue(fmt.Errorf("%w: list repeated %d times", ErrLimit, n))
	}
	out := make([]any, 0, len(items)*n)
	for range n {
		out = append(out, items...)
	}
	return exec.AsValue(out)
}

// modOp is a % b: Python string formatting when a is a string, else the
// Python modulo (result has the sign of the divisor).
func modOp(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	l, r := operands(va)
	if l.IsString() {
		var args []any
		var named any
		switch {
		case r.IsList():
			args = toList(r)
		case isMapping(r):
			named = r
			args = []any{r}
		default:
			args = []any{r}
		}
		s, err := pyFormat(e, l.String(), args, named)
		if err != nil {
			return exec.AsValue(err)
		}
		return exec.AsValue(s)
	}
	if l.IsFloat() || r.IsFloat() {
		b := r.Float()
		if b == 0 {
			return errValue("float modulo by zero")
		}
		m := math.Mod(l.Float(), b)
		if m != 0 && (m < 0) != (b < 0) {
			m += b
		}
		return exec.AsValue(m)
	}
	a, b := l.Integer(), r.Integer()
	if b == 0 {
		return errValue("integer division or modulo by zero")
	}
	m := a % b
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return exec.AsValue(m)
}

// divOp is a / b (always a float, as in Python 3); dividing by zero is an error.
func divOp(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	l, r := operands(va)
	if r.Float() == 0 {
		return errValue("division by zero")
	}
	return exec.AsValue(l.Float() / r.Float())
}

// floorDivOp is a // b with Python's rounding toward negative infinity.
func floorDivOp(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	l, r := operands(va)
	if isInt(l) && isInt(r) {
		a, b := l.Integer(), r.Integer()
		if b == 0 {
			return errValue("integer division or modulo by zero")
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		return exec.AsValue(q)
	}
	if r.Float() == 0 {
		return errValue("float floor division by zero")
	}
	return exec.AsValue(math.Floor(l.Float() / r.Float()))
}

// powOp is a ** b; integers with a non-negative exponent stay integers.
func powOp(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	l, r := operands(va)
	if isInt(l) && isInt(r) && r.Integer() >= 0 {
		base, exp := l.Integer(), r.Integer()
		result := 1
		for exp > 0 {
			if exp&1 == 1 {
				hi, lo := mulOverflow(result, base)
				if hi {
					return exec.AsValue(math.Pow(l.Float(), r.Float()))
				}
				result = lo
			}
			exp >>= 1
			if exp > 0 {
				hi, sq := mulOverflow(base, base)
				if hi {
					return exec.AsValue(math.Pow(l.Float(), r.Float()))
				}
				base = sq
			}
		}
		return exec.AsValue(result)
	}
	return exec.AsValue(math.Pow(l.Float(), r.Float()))
}

func mulOverflow(a, b int) (bool, int) {
	if a == 0 || b == 0 {
		return false, 0
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt) || (b == -1 && a == math.MinInt) {
		return true, 0
	}
	return false, c
}

// itemOp is obj[key] (and obj.0) with Python indexing: negative indexes count
// from the end, strings index by character. A missing item is undefined (nil),
// or an error in strict mode.
func itemOp(_ *exec.Evaluator, va *exec.VarArgs, strict bool) *exec.Value {
	obj, key := operands(va)
	missing := func(format string, args ...any) *exec.Value {
		if strict {
			return errValue(format, args...)
		}
		return exec.AsValue(nil)
	}
	if obj.IsNil() {
		return missing("cannot look up %s in an undefined value", pyRepr(key.Interface()))
	}
	switch {
	case isInt(key):
		return intItem(obj, key.Integer(), missing)
	case key.IsString():
		return nameItem(obj, key.String(), missing)
	default:
		return missing("cannot use %s as an index", typeName(key))
	}
}

// missingItem is what itemOp gives for an item that is not there.
type missingItem func(format string, args ...any) *exec.Value

// intItem is obj[i]: a character of a string, an element of a list, or the
// value of an int-keyed map; a negative i counts from the end.
func intItem(obj *exec.Value, i int, missing missingItem) *exec.Value {
	switch {
	case obj.IsString():
		return charAt(obj.String(), i, missing)
	case obj.IsList():
		v, ok := listAt(obj, i)
		if !ok {
			return missing("list index %d out of range", i)
		}
		return toValue(v)
	}
	rv := reflect.ValueOf(unval(obj))
	if rv.Kind() == reflect.Map && rv.Type().Key().Kind() >= reflect.Int && rv.Type().Key().Kind() <= reflect.Int64 {
		if v := rv.MapIndex(reflect.ValueOf(i).Convert(rv.Type().Key())); v.IsValid() {
			return toValue(v.Interface())
		}
	}
	return missing("no item %d in %s", i, typeName(obj))
}

// charAt is s[i], by character (Python's str indexing).
func charAt(s string, i int, missing missingItem) *exec.Value {
	at := i
	if !ascii.Is(s) {
		rs := []rune(s)
		if at < 0 {
			at += len(rs)
		}
		if at < 0 || at >= len(rs) {
			return missing("string index %d out of range", i)
		}
		return exec.AsValue(string(rs[at]))
	}
	if at < 0 {
		at += len(s)
	}
	if at < 0 || at >= len(s) {
		return missing("string index %d out of range", i)
	}
	return exec.AsValue(s[at : at+1])
}

// nameItem is obj[k]: a mapping's item, or an item or attribute of another
// value.
func nameItem(obj *exec.Value, k string, missing missingItem) *exec.Value {
	if v, ok := mapGet(obj, k); ok {
		return toValue(v)
	}
	if d, ok := unval(obj).(*pyvalue.Dict); ok {
		if m, ok := dictMethod(d, k); ok {
			return m
		}
	}
	if isMapping(obj) {
		return missing("undefined item %q", k)
	}
	if v, ok := obj.GetItem(k); ok {
		return v
	}
	if v, ok := obj.GetAttribute(k); ok {
		return v
	}
	return missing("undefined item %q in %s", k, typeName(obj))
}

func typeName(v *exec.Value) string {
	switch x := unval(v).(type) {
	case nil:
		return "None"
	case string:
		return "str"
	case bool:
		return "bool"
	case exec.ValuesList, []any:
		return "list"
	case *exec.Dict, exec.Dict, map[string]any, namespace, *pyvalue.Dict:
		return "dict"
	default:
		switch reflect.ValueOf(x).Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return "int"
		case reflect.Float32, reflect.Float64:
			return "float"
		case reflect.Slice, reflect.Array:
			return "list"
		case reflect.Map:
			return "dict"
		}
		return fmt.Sprintf("%T", x)
	}
}

// rangeFunction is range([start,] stop[, step]) returning a list, bounded by
// MaxRange per call and 10×MaxRange per render.
func rangeFunction(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	if len(va.KwArgs) > 0 {
		return errValue("range() takes no keyword arguments")
	}
	for _, a := range va.Args {
		if !isInt(a) {
			return errValue("range() arguments must be integers, not %s", typeName(a))
		}
	}
	start, stop, step := 0, 0, 1
	switch len(va.Args) {
	case 1:
		stop = va.Args[0].Integer()
	case 2:
		start, stop = va.Args[0].Integer(), va.Args[1].Integer()
	case 3:
		start, stop, step = va.Args[0].Integer(), va.Args[1].Integer(), va.Args[2].Integer()
	default:
		return errValue("range() expects 1 to 3 integer arguments, got %d", len(va.Args))
	}
	if step == 0 {
		return errValue("range() step must not be zero")
	}
	n := 0
	switch {
	case step > 0 && stop > start:
		n = int((int64(stop) - int64(start) + int64(step) - 1) / int64(step))
	case step < 0 && stop < start:
		n = int((int64(start) - int64(stop) - int64(step) - 1) / -int64(step))
	}
	if n > MaxRange {
		return exec.AsValue(fmt.Errorf("%w: range() of %d elements (limit %d)", ErrLimit, n, MaxRange))
	}
	if st := evalState(e); st != nil {
		st.rangeN += n
		if st.rangeN > 10*MaxRange {
			return exec.AsValue(fmt.Errorf("%w: range() produced more than %d elements in one render", ErrLimit, 10*MaxRange))
		}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return exec.AsValue(out)
}

// namespaceFunction is namespace(mapping?, **attrs): the only object whose
// attributes {% set ns.x = ... %} may change.
func namespaceFunction(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	ns := namespace{}
	if len(va.Args) > 1 {
		return errValue("namespace() takes at most one positional argument")
	}
	if len(va.Args) == 1 {
		if !isMapping(va.Args[0]) {
			return errValue("namespace() argument must be a mapping")
		}
		for _, k := range mapKeys(va.Args[0]) {
			ns[k], _ = mapGet(va.Args[0], k)
		}
	}
	for k, v := range va.KwArgs {
		ns[k] = unval(v)
	}
	return exec.AsValue(ns)
}

// pyFormat is Python's printf-style formatting: format % args. named is the
// mapping used by %(name)s conversions.
func pyFormat(e *exec.Evaluator, format string, args []any, named any) (string, error) {
	f := &pyFormatter{e: e, format: format, args: args, named: named}
	for f.i < len(format) {
		if format[f.i] != '%' {
			j := strings.IndexByte(format[f.i:], '%')
			if j < 0 {
				j = len(format) - f.i
			}
			f.b.WriteString(format[f.i : f.i+j])
			f.i += j
			continue
		}
		f.i++
		if err := f.conversion(); err != nil {
			return "", err
		}
	}
	if f.next < len(args) && !f.usedNamed && !(named != nil && f.next == 0) {
		return "", errors.New("not all arguments converted during string formatting")
	}
	return f.b.String(), nil
}

// pyFormatter is one run of pyFormat: where it is in the format, which
// argument comes next, and the text so far.
type pyFormatter struct {
	e         *exec.Evaluator
	format    string
	i         int
	args      []any
	next      int
	named     any
	usedNamed bool
	b         strings.Builder
}

// convSpec is a conversion specifier: %(key)#0- +width.precision conv.
type convSpec struct {
	arg              any
	haveArg          bool // the mapping key gave arg
	flags            string
	width, precision int // -1: not given
	conv             byte
}

// conversion reads the conversion after a "%" and writes its result.
func (f *pyFormatter) conversion() error {
	sp, err := f.spec()
	if err != nil {
		return err
	}
	if sp.conv == '%' {
		f.b.WriteByte('%')
		return nil
	}
	if !sp.haveArg {
		if sp.arg, err = f.take(); err != nil {
			return err
		}
	}
	s, err := formatOne(sp.conv, sp.flags, sp.width, sp.precision, sp.arg)
	if err != nil {
		return err
	}
	if err := checkLen(f.e, f.b.Len()+len(s), "formatted string"); err != nil {
		return err
	}
	f.b.WriteString(s)
	return nil
}

// spec reads a conversion specifier after its "%": the mapping key, flags,
// width, precision, length modifier and conversion type.
func (f *pyFormatter) spec() (convSpec, error) {
	sp := convSpec{precision: -1}
	if f.i >= len(f.format) {
		return sp, errors.New("incomplete format")
	}
	if f.format[f.i] == '(' {
		v, err := f.mappingKey()
		if err != nil {
			return sp, err
		}
		sp.arg, sp.haveArg = v, true
	}
	for f.i < len(f.format) && strings.IndexByte("#0- +", f.format[f.i]) >= 0 {
		sp.flags += f.format[f.i : f.i+1]
		f.i++
	}
	if err := f.widthPrecision(&sp); err != nil {
		return sp, err
	}
	for f.i < len(f.format) && strings.IndexByte("hlL", f.format[f.i]) >= 0 {
		f.i++
	}
	if f.i >= len(f.format) {
		return sp, errors.New("incomplete format")
	}
	sp.conv = f.format[f.i]
	f.i++
	return sp, nil
}

// mappingKey reads "(key)" and returns the named mapping's value for key.
func (f *pyFormatter) mappingKey() (any, error) {
	end := strings.IndexByte(f.format[f.i:], ')')
	if end < 0 {
		return nil, errors.New("incomplete format key")
	}
	key := f.format[f.i+1 : f.i+end]
	f.i += end + 1
	if f.named == nil {
		return nil, errors.New("format requires a mapping")
	}
	v, ok := mapGet(f.named, key)
	if !ok {
		return nil, fmt.Errorf("format key %q not found", key)
	}
	f.usedNamed = true
	return unval(v), nil
}

// widthPrecision reads the width and ".precision", each a number or "*",
// bounded by maxWidth.
func (f *pyFormatter) widthPrecision(sp *convSpec) error {
	var err error
	if sp.width, err = f.num(); err != nil {
		return err
	}
	if sp.width < -1 || sp.width > maxWidth {
		return fmt.Errorf("%w: format width %d is out of range", ErrLimit, sp.width)
	}
	if f.i < len(f.format) && f.format[f.i] == '.' {
		f.i++
		if sp.precision, err = f.num(); err != nil {
			return err
		}
		sp.precision = max(sp.precision, 0)
		if sp.precision > maxWidth {
			return fmt.Errorf("%w: format precision %d is larger than %d", ErrLimit, sp.precision, maxWidth)
		}
	}
	return nil
}

// num reads a width or precision: "*" (the next argument, an int), digits,
// or nothing (-1).
func (f *pyFormatter) num() (int, error) {
	if f.i < len(f.format) && f.format[f.i] == '*' {
		f.i++
		v, err := f.take()
		if err != nil {
			return 0, err
		}
		n, ok := v.(int)
		if !ok {
			return 0, errors.New("* wants int")
		}
		return n, nil
	}
	start := f.i
	for f.i < len(f.format) && f.format[f.i] >= '0' && f.format[f.i] <= '9' {
		f.i++
	}
	if start == f.i {
		return -1, nil
	}
	n, err := strconv.Atoi(f.format[start:f.i])
	if err != nil || n > maxWidth {
		return 0, fmt.Errorf("%w: format width %s is larger than %d", ErrLimit, f.format[start:f.i], maxWidth)
	}
	return n, nil
}

// take returns the next positional argument.
func (f *pyFormatter) take() (any, error) {
	if f.next >= len(f.args) {
		return nil, errors.New("not enough arguments for format string")
	}
	v := f.args[f.next]
	f.next++
	return unval(v), nil
}

func formatOne(conv byte, flags string, width, precision int, arg any) (string, error) {
	spec := "%" + flags
	if width >= 0 {
		spec += strconv.Itoa(width)
	}
	if precision >= 0 {
		spec += "." + strconv.Itoa(precision)
	}
	switch conv {
	case 's':
		return fmt.Sprintf(spec+"s", pyStr(arg)), nil
	case 'r', 'a':
		return fmt.Sprintf(spec+"s", pyRepr(arg)), nil
	case 'd', 'i', 'u':
		n, err := intArg(conv, arg)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(spec+"d", n), nil
	case 'o', 'x', 'X':
		n, err := intArg(conv, arg)
		if err != nil {
			return "", err
		}
		verb := string(conv)
		if conv == 'o' && strings.Contains(flags, "#") {
			verb = "O"
			spec = strings.ReplaceAll(spec, "#", "")
		}
		return fmt.Sprintf(spec+verb, n), nil
	case 'e', 'E', 'f', 'F', 'g', 'G':
		return formatFloat(conv, spec, precision, arg)
	case 'c':
		return formatChar(conv, spec, arg)
	}
	return "", fmt.Errorf("unsupported format character %q", conv)
}

// formatFloat is one %e, %f or %g conversion (Python's: precision 6 by
// default, inf and nan in Python's spelling).
func formatFloat(conv byte, spec string, precision int, arg any) (string, error) {
	f, err := floatArg(conv, arg)
	if err != nil {
		return "", err
	}
	if precision < 0 {
		spec += ".6"
	}
	verb := string(conv)
	if conv == 'F' {
		verb = "f"
	}
	s := fmt.Sprintf(spec+verb, f)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s = strings.NewReplacer("+Inf", "inf", "-Inf", "-inf", "Inf", "inf", "NaN", "nan").Replace(s)
		if conv >= 'A' && conv <= 'Z' {
			s = strings.ToUpper(s)
		}
	}
	return s, nil
}

// formatChar is one %c conversion: a one-character string, or a code point
// (out of range is an error, as in Python).
func formatChar(conv byte, spec string, arg any) (string, error) {
	if x, ok := arg.(string); ok {
		if utf8.RuneCountInString(x) != 1 {
			return "", errors.New("%c requires an int or a single character")
		}
		return fmt.Sprintf(spec+"s", x), nil
	}
	n, err := intArg(conv, arg)
	if err != nil {
		return "", err
	}
	if n < 0 || n > unicode.MaxRune {
		return "", errors.New("%c arg not in range(0x110000)")
	}
	return fmt.Sprintf(spec+"c", rune(n)), nil
}

func intArg(conv byte, arg any) (int64, error) {
	switch x := arg.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		return int64(x), nil
	case float32:
		return int64(x), nil
	}
	rv := reflect.ValueOf(arg)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return 0, fmt.Errorf("%%%c format: %d is too large", conv, u)
		}
		return int64(u), nil
	}
	return 0, fmt.Errorf("%%%c format: a number is required, not %s", conv, typeName(exec.AsValue(arg)))
}

func floatArg(conv byte, arg any) (float64, error) {
	switch x := arg.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	rv := reflect.ValueOf(arg)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	}
	return 0, fmt.Errorf("%%%c format: a real number is required, not %s", conv, typeName(exec.AsValue(arg)))
}
