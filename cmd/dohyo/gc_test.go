package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestTuneGC: serve raises the collector's percentage for a small heap
// unless GOGC is set or the floor is 0, and restores it when it stops.
func TestTuneGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	gogc := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := DefaultConfig()
	noEnv := func(string) string { return "" }
	if tu := tuneGC(cfg, func(k string) string { return map[string]string{"GOGC": "200"}[k] }, log); tu != nil {
		tu.Stop()
		t.Error("tuned although GOGC is set")
	}
	zero := cfg
	zero.GCHeapFloor = 0
	if tu := tuneGC(zero, noEnv, log); tu != nil {
		tu.Stop()
		t.Error("tuned with gc-heap-floor-bytes 0")
	}
	huge := cfg
	huge.GCHeapFloor = 1 << 40 // above any heap of this test
	tu := tuneGC(huge, noEnv, log)
	if tu == nil {
		t.Fatal("not tuned with the default config")
	}
	if got := gogc(); got <= 100 {
		t.Errorf("tuned: collector at %d%%, want above 100", got)
	}
	tu.Stop()
	if got := gogc(); got != 100 {
		t.Errorf("after Stop: collector at %d%%, want 100", got)
	}
}
