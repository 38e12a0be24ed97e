package main

import (
	"slices"
	"testing"
)

// TestChildEnvTurnsRDTSCPOff: the measured child runs with cpu.rdtscp=off
// (valgrind 3.19 cannot run RDTSCP) and cooperative preemption, keeping a
// GODEBUG the caller set, with one P, and without the collector unless asked.
func TestChildEnvTurnsRDTSCPOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		gc   bool
		want []string
	}{
		{"plain", []string{"HOME=/h"}, false,
			[]string{"HOME=/h", "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off", "GOMAXPROCS=1", "GOGC=off"}},
		{"caller's GODEBUG kept", []string{"GODEBUG=gctrace=1", "HOME=/h"}, true,
			[]string{"HOME=/h", "GODEBUG=gctrace=1,asyncpreemptoff=1,cpu.rdtscp=off", "GOMAXPROCS=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := childEnv(tc.env, tc.gc); !slices.Equal(got, tc.want) {
				t.Fatalf("childEnv = %q, want %q", got, tc.want)
			}
		})
	}
}
