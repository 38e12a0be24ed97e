package cogtest

import "strings"

// OrKa's extract_patterns of examples/cognitive_loop_scoring_example.yml,
// verbatim: insights, improvements and mistakes.
var (
	OrkaInsights = []string{
		`(?:provides?|identifies?|shows?|reveals?)\s+(.+?)(?:\n|$)`,
		`(?:key|main|important)\s+(?:insight|finding|point)s?[:\s]+(.+?)(?:\n|$)`,
	}
	OrkaImprovements = []string{
		`(?:lacks?|needs?|requires?|missing|should)\s+(.+?)(?:\n|$)`,
		`(?:could|would)\s+(?:improve|benefit|enhance)\s+(.+?)(?:\n|$)`,
	}
	OrkaMistakes = []string{
		`(?:overlooked|missed|not adequately|fails? to)\s+(.+?)(?:\n|$)`,
		`(?:weakness|gap|issue|problem)s?[:\s]+(.+?)(?:\n|$)`,
	}
)

// AnalyzerText is an analyst's reply with lessons of every category.
const AnalyzerText = `KEY_INSIGHTS:
1. The data shows a steady rise in remote work adoption since 2020
2. Survey results reveal that productivity depends on team size
Key finding: hybrid schedules reduce attrition by a measurable margin

ANALYSIS:
The report provides a balanced view of costs and benefits.
It lacks regional data for smaller markets
The section on tooling needs more concrete examples.
Adding case studies would improve the credibility of the argument

AREAS_NEEDING_WORK:
- Missing long-term health outcomes of remote workers`

// ScorerText is a scorer's reply: a breakdown, a score line and lessons.
const ScorerText = `BREAKDOWN:
- Completeness: 0.2
SCORE: 0.72

IMPROVEMENTS_NEEDED:
- The analysis should quantify the productivity claims
- It requires a comparison with pre-2020 baselines

GAPS_FOUND:
- The author overlooked the effect on junior employees
- Weakness: no discussion of security risks in home networks
- Fails to address the legal implications of cross-border hiring`

// ModerateLoop is the loop_convergence/moderate preset table of the spec
// (3.4): "dimension.criterion" weights.
var ModerateLoop = map[string]float64{
	"improvement.better_than_previous": 0.25,
	"improvement.significant_delta":    0.15,
	"improvement.approaching_target":   0.10,
	"stability.not_degrading":          0.18,
	"stability.consistent_direction":   0.12,
	"convergence.delta_decreasing":     0.12,
	"convergence.within_tolerance":     0.08,
}

// Iteration is three agents with about 1 KB of text each, the score on the
// scorer's last line; mk makes one result (cognition.Result) of an id and a
// value.
func Iteration[R any](mk func(id string, value any) R) []R {
	pad := func(s string) string {
		for len(s) < 1000 {
			s += "\nFurther discussion of the topic adds context without new claims, as models often do."
		}
		return s
	}
	return []R{
		mk("analyzer", map[string]any{"response": pad(AnalyzerText), "confidence": 0.8, "internal_reasoning": "r"}),
		mk("critic", pad("The critique identifies three weak spots in the argument.\nIt should cite sources.")),
		mk("scorer", map[string]any{"response": pad(ScorerText) + "\nSCORE: 0.72", "confidence": 0.9}),
	}
}

// DifferentialTexts are realistic model output and inputs chosen against the
// prefilter: case folding that changes byte lengths, invalid UTF-8, final
// newlines, dense literal occurrences.
func DifferentialTexts() []string {
	texts := []string{
		AnalyzerText, ScorerText, AnalyzerText + "\n", ScorerText + "\n\n",
		"The answer identifies the base case clearly.\nIt lacks a concrete example with numbers.\nIt overlooked the cost of deep call stacks.\nWeakness: no mention of tail calls.",
		"Decent but incomplete. SCORE: 0.62", "SCORE: 8/10", "**Score:** 0.85\n", "Score: 9.5 / 10", "7 out of 10", "85%",
		"rating: 4.5 points", "confidence: 0.9\nagreement: 0.7\nconsensus: 0.8", "AGREEMENT: 0.66 AGREEMENT_SCORE: 0.7",
		`{"score": 0.85, "response": "shows 0.7"}`, "QUALITY: 0.9\nQUALITY_SCORE: 0.8\n1.0 and 0.55 and 0.75",
		"SHOWS the point\nShOwS it\nſhows not\n\u212Aey finding: kelvin key\nİmportant point: dotted\n",
		"Key: value\r\nkey: other\r\n", "KEY INSIGHT: trailing newline\n", "main point: no newline at all",
		"ÉTÉ été Été ÉtÉ", "ß ẞ ss SS", "ΣΑΣ σας ς", "x\u2028y\u0085z\u00a0w", "\xff\xfeSCORE: \xc3 0.5 shows \xff\n",
		"", "\n", "a", "ab", "aab", "abcd", "$12 and $3", "50 percent and 60 %",
		"- first item line\n- second item line\n- third item line", "note: ünï ok", "no score here", "score",
		strings.Repeat("show ", 200) + "shows it at the end", strings.Repeat("shows x\n", 300),
		strings.Repeat("0.", 500) + "0.75", strings.Repeat("needs\n", 100) + "needs a real example here",
		"The data shows a rise\nand reveals more\nit needs work\nmissing pieces\nwould improve clarity\nfails to cite\n",
		// where RE2 and regexp2 differ: \v in \s, Unicode digits, spaces and
		// letters in \d \s \w \b, $ before a final newline
		"SCORE:\v0.5\nshows\vit all\n", "SCORE:\u20030.7 shows\u2003this", "٣/10 and 3/10; ٣ out of 10", "über_wörd key: ü9",
		"insight: one\ninsight: two\n", "x 7/10\n", "shows it\v\n", "Ärger shows ÄRGER\n",
	}
	for i := range 4 {
		texts = append(texts, strings.Repeat("Further discussion adds context. ", 30*(i+1))+"The report provides a balanced view.\nSCORE: 0.7")
	}
	return texts
}

// Resp is an agent's mapping result in OrKa's shape with text as its
// response.
func Resp(text string) map[string]any {
	return map[string]any{"response": text, "confidence": 0.9, "internal_reasoning": "r"}
}

// LoopReplies are the replies of bench/'s loop workload (bench/workloads.go),
// the improver's with a non-ASCII character: the texts a loop pass's lesson
// extraction reads.
var LoopReplies = [3]string{
	"Recursion is a way of solving a problem by solving smaller copies of the same problem. " +
		"A recursive function calls itself on a smaller input until it reaches a base case it can answer directly.\n" +
		"This shows how a big problem splits into small ones: factorial(5) is 5 × factorial(4), and so on down to factorial(1) = 1.\n" +
		"The key insight: every call must move toward the base case, or the function never stops.\n" +
		"In short, recursion trades a loop for a function that trusts itself on smaller inputs.",
	"The answer identifies the base case clearly and shows the factorial example step by step.\n" +
		"It lacks a picture of the call stack growing and shrinking.\n" +
		"It needs a second example that is not arithmetic, such as walking a folder tree.\n" +
		"It overlooked the cost of deep call stacks and the risk of a stack overflow.\n" +
		"Weakness: no mention of when a loop is the better tool.",
	"Clear and correct, but the stack and a non-numeric example are missing.\nSCORE: 0.62",
}
