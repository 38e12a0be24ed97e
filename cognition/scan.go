package cognition

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/ascii"
)

// Text is one text of an iteration prepared for regex scanning: cut to the
// input cap, with invalid UTF-8 replaced rune by rune (as a []rune conversion
// does, so byte and rune positions agree with what regexp2 sees). Its rune form,
// lower-cased form and position tables are made once, on first use, and shared by
// every pattern of the call.
type Text struct {
	agent string // agent id, for warnings
	field string // the mapping field the text comes from; "" for a bare-string result
	s     string // the text, cut to MaxInput
	size  int    // length of the whole text in bytes
	kept  int    // length of the cut text in bytes, before invalid UTF-8 was replaced
	cut   bool
	noted bool // the cut was reported
	ascii bool // s is ASCII: rune index == byte offset
	vt    int8 // s has a vertical tab: 0 not looked, 1 no, 2 yes

	r       []rune // s as runes, for regexp2
	lower   string // s lower-cased rune by rune with unicode.ToLower
	lowOK   bool   // lower is set
	lowA    bool   // lower is ASCII
	lowSame bool   // every rune of lower has the size of its rune in s: the offsets agree
	offs    runeMap
	loffs   runeMap // rune index ↔ byte offset of s / lower, for non-ASCII texts
	offsOK  [2]bool // offs / loffs are made

	occ   [2][]litOcc  // occurrences of the literals of occIx in s / lower
	occIx [2]*litIndex // the index occ was made with; nil: none
}

// cutMark joins the head and the tail of a text longer than the input cap.
const cutMark = "\n…\n"

// newText prepares s for scanning with the input cap max: a longer text is
// scanned in its first and its last max/2 bytes (models often put the score
// last), joined by a line with "…".
func newText(agent, field, s string, max int) *Text {
	capped, cut := headTail(s, max)
	ascii := ascii.Is(capped)
	kept := len(capped)
	if cut {
		kept -= len(cutMark)
	}
	if !ascii && !utf8.ValidString(capped) {
		capped = string([]rune(capped))
	}
	return &Text{agent: agent, field: field, s: capped, size: len(s), kept: kept, cut: cut, ascii: ascii}
}

// label names the text in warnings: agent "scorer" response.
func (t *Text) label() string {
	if t.field == "" {
		return fmt.Sprintf("agent %q", t.agent)
	}
	return fmt.Sprintf("agent %q %s", t.agent, t.field)
}

// hasVT reports whether s has a vertical tab (\v), which .NET's \s matches
// and RE2's does not.
func (t *Text) hasVT() bool {
	if t.vt == 0 {
		t.vt = 1
		if strings.IndexByte(t.s, '\v') >= 0 {
			t.vt = 2
		}
	}
	return t.vt == 2
}

// Agent is the id of the agent the text comes from.
func (t *Text) Agent() string { return t.agent }

// Field is the mapping field the text comes from; "" for a bare-string result.
func (t *Text) Field() string { return t.field }

// Runes returns the (cut) text as runes: the positions [Scan.First] reports
// index it.
func (t *Text) Runes() []rune {
	if t.r == nil {
		t.r = toRunes(t.s, t.ascii)
	}
	return t.r
}

// toRunes is []rune(s) for valid UTF-8 s, with ASCII runs copied byte by byte.
func toRunes(s string, isASCII bool) []rune {
	n := len(s)
	if !isASCII {
		n = utf8.RuneCountInString(s)
	}
	r := make([]rune, n)
	j := 0
	for i := 0; i < len(s); {
		k := len(s) - i
		if !isASCII {
			k = ascii.Prefix(s[i:])
		}
		copyASCII(r[j:j+k], s[i:i+k])
		i, j = i+k, j+k
		if i == len(s) {
			break
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		r[j] = c
		i, j = i+size, j+1
	}
	return r
}

// copyASCII sets dst to the bytes of src, as runes; they have the same length.
func copyASCII(dst []rune, src string) {
	src = src[:len(dst)]
	for k := range dst {
		dst[k] = rune(src[k])
	}
}

// searchable returns the text that literals are looked for in: the text, or
// its lower-cased form for a case-insensitive prefilter.
func (t *Text) searchable(fold bool) string {
	if !fold {
		return t.s
	}
	if !t.lowOK {
		t.lower, t.lowA, t.lowSame = lowerText(t.s)
		t.lowOK = true
	}
	return t.lower
}

// runeIndex converts a byte offset of searchable(fold), on a rune boundary, to
// a rune index (the same in both forms: lower-casing maps rune to rune).
func (t *Text) runeIndex(fold bool, b int) int {
	m := t.offsets(fold)
	if m == nil {
		return b
	}
	return m.runeIndex(b)
}

// byteOffset converts a rune index to a byte offset of searchable(fold).
func (t *Text) byteOffset(fold bool, i int) int {
	m := t.offsets(fold)
	if m == nil {
		return i
	}
	return m.byteOffset(i)
}

// offsets returns the rune ↔ byte map of searchable(fold), nil when it is
// ASCII.
func (t *Text) offsets(fold bool) *runeMap {
	if !fold {
		if t.ascii {
			return nil
		}
		if !t.offsOK[0] {
			t.offs, t.offsOK[0] = newRuneMap(t.s), true
		}
		return &t.offs
	}
	low := t.searchable(true)
	switch {
	case t.lowA:
		return nil
	case t.lowSame:
		return t.offsets(false)
	}
	if !t.offsOK[1] {
		t.loffs, t.offsOK[1] = newRuneMap(low), true
	}
	return &t.loffs
}

// runeMap converts between rune indexes and byte offsets of a text by its
// multi-byte runes alone: ASCII runs between them count one byte per rune.
// Building it reads the text once and allocates only for multi-byte runes.
type runeMap struct {
	idx []int32 // rune index of each multi-byte rune, ascending
	end []int32 // byte offset just after it
}

func newRuneMap(s string) runeMap {
	var m runeMap
	n := int32(0) // runes before byte i
	for i := 0; i < len(s); {
		k := ascii.Prefix(s[i:])
		i += k
		n += int32(k) //nolint:gosec // texts are cut to Limits.MaxInput ≤ maxMaxInput (1 GiB) before a scan
		if i == len(s) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		m.idx = append(m.idx, n)
		m.end = append(m.end, int32(i)) //nolint:gosec // as above
		n++
	}
	return m
}

// byteOffset returns the byte offset of rune index i.
func (m *runeMap) byteOffset(i int) int {
	// k: the number of multi-byte runes before rune i.
	k := sort.Search(len(m.idx), func(j int) bool { return int(m.idx[j]) >= i })
	if k == 0 {
		return i
	}
	return int(m.end[k-1]) + i - int(m.idx[k-1]) - 1
}

// runeIndex returns the rune index of byte offset b, on a rune boundary.
func (m *runeMap) runeIndex(b int) int {
	// k: the number of multi-byte runes that end at or before b.
	k := sort.Search(len(m.end), func(j int) bool { return int(m.end[j]) > b })
	if k == 0 {
		return b
	}
	return int(m.idx[k-1]) + 1 + b - int(m.end[k-1])
}

// lowerText lower-cases valid UTF-8 s rune by rune with unicode.ToLower, as
// regexp2 does under IgnoreCase (and as strings.ToLower does), and reports
// whether the result is ASCII and whether every rune kept its size (so byte
// offsets of s and of the result agree). s itself is returned when nothing
// changes.
func lowerText(s string) (low string, lowASCII, sameSize bool) {
	i := lowerASCIIPrefix(s)
	if i == len(s) {
		return s, true, true
	}
	b := []byte(s)
	lowA := true
	for i < len(b) {
		if i+8 <= len(b) {
			if w := binary.LittleEndian.Uint64(b[i:]); w&hiBits == 0 {
				binary.LittleEndian.PutUint64(b[i:], w|upperMask(w)>>2)
				i += 8
				continue
			}
		}
		c := b[i]
		if c < utf8.RuneSelf { // unicode.ToLower's ASCII case, inline
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		l := unicode.ToLower(r)
		lowA = lowA && l < utf8.RuneSelf
		if l == r && r != utf8.RuneError {
			i += size
			continue
		}
		if utf8.RuneLen(l) != size || r == utf8.RuneError {
			// The rune changes size (or is not valid UTF-8): go on by appending.
			low, lowA = lowerAppend(b[:i], s[i:], lowA)
			return low, lowA, false
		}
		utf8.EncodeRune(b[i:], l)
		i += size
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), lowA, true
}

// lowerASCIIPrefix returns the length of s's start that is ASCII without
// upper-case letters, read a word at a time.
func lowerASCIIPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if w := word(s[i:]); w&hiBits != 0 || upperMask(w) != 0 {
			break
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	return i
}

const (
	hiBits  = 0x8080808080808080
	oneEach = 0x0101010101010101
)

// word reads 8 bytes of s, the first in the lowest byte.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// upperMask has the high bit of every byte of w, all ASCII, that is in A–Z.
// (No byte overflows into the next: the bytes are below 0x80.)
func upperMask(w uint64) uint64 {
	geA := w + (0x80-'A')*oneEach   // high bit: byte ≥ 'A'
	gtZ := w + (0x80-'Z'-1)*oneEach // high bit: byte > 'Z'
	return (geA ^ gtZ) & hiBits
}

// lowerAppend is lowerText for the rest s of a text whose start, already
// lower-cased, is b; it reports whether all of it is ASCII.
func lowerAppend(b []byte, s string, lowA bool) (string, bool) {
	out := make([]byte, len(b), len(b)+len(s)+8)
	copy(out, b)
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		r = unicode.ToLower(r)
		lowA = lowA && r < utf8.RuneSelf
		out = utf8.AppendRune(out, r)
		i += size
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), lowA
}

// Scan is the per-call state of one Score or Extract call: the limits, the
// regex budget and the warnings. It is never shared between calls (nor between
// goroutines). The zero value scans with its own budget of Limits.Budget, which
// must then be set: callers set Limits to their compiled limits.
type Scan struct {
	Limits   Limits
	Budget   *Budget // the pass's shared budget; nil: the call's own, of Limits.Budget
	warnings []Warning
}

// Warn records a warning of the call.
func (sc *Scan) Warn(code, format string, args ...any) {
	sc.warnings = append(sc.warnings, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
}

// Warnings returns the warnings recorded so far.
func (sc *Scan) Warnings() []Warning { return sc.warnings }

// Text prepares s, the text of field of agent's result ("" for a bare-string
// result), for scanning: cut to Limits.MaxInput. Prepare a text once and scan
// it with every pattern.
func (sc *Scan) Text(agent, field, s string) *Text {
	return newText(agent, field, s, sc.Limits.MaxInput)
}

// note reports, once, that t was cut to the input cap.
func (sc *Scan) note(t *Text) {
	if t.cut && !t.noted {
		t.noted = true
		sc.Warn(CodeTextCut, "%s: text of %d bytes scanned only in its first and last %d bytes", t.label(), t.size, t.kept/2)
	}
}

// errBudget stops a scan when the regex budget is spent; allowAt has already
// recorded the warning.
var errBudget = errors.New("regex budget spent")

// Budget is a regex time budget shared by several Score and Extract calls: the
// loop node gives all the score and lesson patterns of one pass one Budget. Its
// clock starts with the first run of the regex engine; it is checked before
// every run, and once it is spent every remaining scan is skipped, with one
// warning ([CodeRegexBudget]) in the call that found it spent. A Budget is not
// safe for concurrent use: the calls sharing it run one after the other.
type Budget struct {
	limit    time.Duration
	deadline time.Time
	spent    bool
	warned   bool
	// cpu measures the budget in the CPU time of the calling OS thread
	// ([NewCPUBudget]) instead of wall time.
	cpu bool
}

// NewBudget returns a budget of d of wall time; d ≤ 0 means
// [DefaultPassBudget].
func NewBudget(d time.Duration) *Budget {
	if d <= 0 {
		d = DefaultPassBudget
	}
	return &Budget{limit: d}
}

// NewCPUBudget returns a budget of d (≤ 0: [DefaultPassBudget]) measured in
// the CPU time the calling OS thread spends, so that the outcome does not
// depend on how busy the machine is: a goroutine waiting for a CPU spends
// none of it. Its user must keep to one OS thread while the budget is in use
// (runtime.LockOSThread), or the time of other goroutines on the thread
// counts too. A single run's MatchTimeout is wall time (regexp2 keeps that
// clock): under a CPU budget a run it stopped before the run used
// MatchTimeout in CPU time runs again with a longer wall timeout, so that
// load does not decide a match either. On a system whose thread CPU time cannot be
// read it is a wall-time budget.
func NewCPUBudget(d time.Duration) *Budget {
	b := NewBudget(d)
	_, b.cpu = threadCPU()
	return b
}

// threadCPU reads the calling thread's CPU time (tests replace it).
var threadCPU = osThreadCPU

// now is the time on the budget's clock: the thread's CPU time (as a time
// after the zero time) for a CPU budget, else the wall clock.
func (b *Budget) now() time.Time {
	if b != nil && b.cpu {
		if d, ok := threadCPU(); ok {
			return time.Unix(0, 0).Add(d)
		}
	}
	return time.Now()
}

// Spent reports whether the budget ran out.
func (b *Budget) Spent() bool { return b != nil && b.spent }

// allowAt reports whether, at time now, the budget still allows running the
// regex engine; the first call that finds it spent returns a warning.
func (b *Budget) allowAt(now time.Time) (ok bool, warning string) {
	if b.deadline.IsZero() {
		b.deadline = now.Add(b.limit)
		return true, ""
	}
	if b.spent {
		return false, ""
	}
	if now.After(b.deadline) {
		b.spent = true
		if !b.warned {
			b.warned = true
			return false, fmt.Sprintf("regex budget of %v spent: remaining scans skipped", b.limit)
		}
		return false, ""
	}
	return true, ""
}

// now is the time on the clock of the call's budget (see [Budget]); the
// checks below compare times of that clock only.
func (sc *Scan) now() time.Time {
	if sc == nil {
		return time.Now()
	}
	return sc.Budget.now()
}

// cpuClock reports whether the call's budget runs on CPU time.
func (sc *Scan) cpuClock() bool { return sc != nil && sc.Budget != nil && sc.Budget.cpu }

// allowAt reports whether, at time now, the call's regex budget still allows
// running the regex engine. A nil scan has no budget.
func (sc *Scan) allowAt(now time.Time) bool {
	if sc == nil {
		return true
	}
	if sc.Budget == nil {
		sc.Budget = &Budget{limit: sc.Limits.Budget}
	}
	ok, w := sc.Budget.allowAt(now)
	if w != "" {
		sc.Warn(CodeRegexBudget, "%s", w)
	}
	return ok
}

// left is what is left at now of the call's regex budget: its whole limit
// before the first run of the engine. A nil scan has all the time.
func (sc *Scan) left(now time.Time) time.Duration {
	if sc == nil {
		return time.Duration(math.MaxInt64)
	}
	b := sc.Budget
	switch {
	case b == nil && sc.Limits.Budget > 0:
		return sc.Limits.Budget
	case b == nil || b.limit <= 0:
		return time.Duration(math.MaxInt64)
	case b.deadline.IsZero():
		return b.limit
	}
	return b.deadline.Sub(now)
}

// spent reports whether the call's budget ran out.
func (sc *Scan) spent() bool { return sc.Budget.Spent() }

// First runs p on t and returns the rune span of the first match's value
// (group 1, or the whole match) in t.Runes(). A cut text, a timeout, an engine
// failure or a spent budget becomes a warning of the call, and a failed scan
// counts as no match.
func (sc *Scan) First(p *Pattern, t *Text) (start, end int, ok bool) {
	if sc.spent() {
		return 0, 0, false
	}
	sc.note(t)
	start, end, ok, err := p.first(t, sc)
	if err != nil {
		if !errors.Is(err, errBudget) {
			sc.matchWarn(t, err)
		}
		return 0, 0, false
	}
	return start, end, ok
}

func (sc *Scan) matchWarn(t *Text, err error) {
	code := CodeRegexFailure
	if errors.Is(err, ErrMatchTimeout) {
		code = CodeRegexTimeout
	}
	sc.Warn(code, "%s: %v", t.label(), err)
}

// each calls fn with every match span of p in t (see Pattern.each), stopping
// when the budget is spent.
func (sc *Scan) each(p *Pattern, t *Text, fn func(start, end int) bool) {
	if sc.spent() {
		return
	}
	sc.note(t)
	truncated, err := p.each(t, sc, fn)
	switch {
	case errors.Is(err, errBudget):
	case err != nil:
		sc.matchWarn(t, err)
	case truncated:
		sc.Warn(CodeTooMany, "%s: pattern %q: only the first %d matches read", t.label(), p.expr, maxMatchesPerScan)
	}
}

// headTail cuts s longer than max to its first and last max/2 bytes (at rune
// boundaries), joined by cutMark.
func headTail(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	head, _ := modeltext.Cap(s, max/2)
	i := len(s) - max/2
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return head + cutMark + s[i:], true
}
