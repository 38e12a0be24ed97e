// The tests the coder example's model must make pass. Its model writes
// sum.go next to this file with the write_code tool; TestMain prints the
// score the loop reads (SCORE: 1 when every test passed, else SCORE: 0).
package sum

import (
	"fmt"
	"os"
	"testing"
)

func TestSum(t *testing.T) {
	cases := []struct {
		in   []int
		want int
	}{{nil, 0}, {[]int{5}, 5}, {[]int{1, 2, 3}, 6}, {[]int{-4, 4, 10}, 10}}
	for _, c := range cases {
		if got := Sum(c.in); got != c.want {
			t.Errorf("Sum(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	score := 0
	if code == 0 {
		score = 1
	}
	fmt.Printf("SCORE: %d\n", score)
	os.Exit(code)
}
