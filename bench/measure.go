package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTime is the CPU time of the whole process so far: user and system, every
// goroutine and the garbage collector included.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the CPU time (user + system) process pid has used so far, read
// from /proc (Linux; USER_HZ is 100 there); ok false where it cannot be read.
func procCPU(pid int) (d time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// fields 14 and 15 (utime, stime) count from after its closing one.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * (time.Second / 100), true
}

// gcCPU is the runtime's estimate of the CPU seconds the garbage collector
// and the whole process (less idle time) have used so far.
func gcCPU() (gc, used float64) {
	samples := []metrics.Sample{
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/cpu/classes/idle:cpu-seconds"},
	}
	metrics.Read(samples)
	for _, s := range samples {
		if s.Value.Kind() != metrics.KindFloat64 {
			return 0, 0
		}
	}
	return samples[0].Value.Float64(), samples[1].Value.Float64() - samples[2].Value.Float64()
}

// cost is what a unit of work (an agent step, a loop iteration) cost the process.
type cost struct {
	cpu    time.Duration // process CPU time per unit
	wall   time.Duration // wall time per unit
	allocs float64       // heap allocations per unit
	bytes  float64       // heap bytes allocated per unit
	units  int
}

// measureCPU calls fn (which does some units of work and says how many) until
// at least d of wall time has passed, after two warm-up calls and a GC, and
// returns the cost per unit. The process must be otherwise idle: every CPU
// nanosecond it spends is charged to fn.
func measureCPU(d time.Duration, fn func() (units int, err error)) (cost, error) {
	for range 2 {
		if _, err := fn(); err != nil {
			return cost{}, err
		}
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0, t0 := cpuTime(), time.Now()
	units := 0
	for time.Since(t0) < d || units == 0 {
		n, err := fn()
		if err != nil {
			return cost{}, err
		}
		units += n
	}
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	runtime.ReadMemStats(&m1)
	u := float64(units)
	return cost{
		cpu:    time.Duration(float64(cpu) / u),
		wall:   time.Duration(float64(wall) / u),
		allocs: float64(m1.Mallocs-m0.Mallocs) / u,
		bytes:  float64(m1.TotalAlloc-m0.TotalAlloc) / u,
		units:  units,
	}, nil
}

// wallOf times fn once.
func wallOf(fn func() error) (time.Duration, error) {
	t0 := time.Now()
	err := fn()
	return time.Since(t0), err
}

// sleepBaseline is the floor this machine's timers and scheduler allow for n
// sequential waits of d each: the same waits with no framework around them.
func sleepBaseline(n int, d time.Duration) time.Duration {
	t0 := time.Now()
	for range n {
		_ = sleep(context.Background(), d) // never canceled
	}
	return time.Since(t0)
}

// sleep waits d or until ctx ends, the way a model call waits for its reply.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// summary is the median, min and max of a sample.
type summary struct{ median, min, max float64 }

func summarise(xs []float64) summary {
	if len(xs) == 0 {
		return summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return summary{median: med, min: s[0], max: s[len(s)-1]}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
