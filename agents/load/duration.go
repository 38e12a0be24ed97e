package load

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var isoDuration = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// maxDuration is the longest duration a time.Duration holds (about 292 years).
const maxDuration = time.Duration(math.MaxInt64)

// ParseDuration parses a duration written as seconds ("30", "1.5"), a Go duration
// ("1m30s") or an ISO-8601 duration ("PT5S", "P1DT2H"). Negative values, NaN,
// infinities and durations too long for time.Duration (about 292 years) are
// errors.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	num := s
	switch strings.ToLower(s) { // YAML's spellings of the special floats
	case ".inf", "+.inf", "-.inf", ".nan":
		num = strings.Replace(s, ".", "", 1)
	}
	if f, err := strconv.ParseFloat(num, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return seconds(s, f, time.Second)
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("duration %q is negative", s)
		}
		return d, nil
	} else if strings.Contains(err.Error(), "invalid duration") && goDuration.MatchString(s) {
		return 0, fmt.Errorf("duration %q is too long: the longest is %v", s, maxDuration)
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
		part, err := seconds(s, f, u)
		if err != nil {
			return 0, err
		}
		if d > maxDuration-part {
			return 0, fmt.Errorf("duration %q is too long: the longest is %v", s, maxDuration)
		}
		d += part
	}
	return d, nil
}

// goDuration is the shape of a Go duration ("1h30m", "-2.5s"), to tell an
// overflow from a typo.
var goDuration = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// seconds converts f units (written as s) to a duration, refusing NaN,
// infinities, negatives and overflow.
func seconds(s string, f float64, unit time.Duration) (time.Duration, error) {
	switch {
	case math.IsNaN(f):
		return 0, fmt.Errorf("duration %q is not a number", s)
	case f < 0:
		return 0, fmt.Errorf("duration %q is negative", s)
	case math.IsInf(f, 1) || f*float64(unit) >= float64(maxDuration):
		return 0, fmt.Errorf("duration %q is too long: the longest is %v", s, maxDuration)
	}
	return time.Duration(f * float64(unit)), nil
}
