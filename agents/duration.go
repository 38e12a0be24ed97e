package agents

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var isoDuration = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// ParseDuration parses a duration written as seconds ("30", "1.5"), a Go duration
// ("1m30s") or an ISO-8601 duration ("PT5S", "P1DT2H"). Negative values are errors.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("duration %q is negative", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("duration %q is negative", s)
		}
		return d, nil
	}
	m := isoDuration.FindStringSubmatch(strings.ToUpper(s))
	if m == nil || s == "P" || strings.HasSuffix(strings.ToUpper(s), "T") {
		return 0, fmt.Errorf("cannot read %q as a duration: write seconds (30), a Go duration (1m30s) or ISO-8601 (PT30S)", s)
	}
	var d time.Duration
	units := []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second}
	for i, u := range units {
		if m[i+1] == "" {
			continue
		}
		f, _ := strconv.ParseFloat(m[i+1], 64)
		d += time.Duration(f * float64(u))
	}
	return d, nil
}
