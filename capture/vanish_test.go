package capture

import (
	"os"
	"strings"
	"testing"
	"time"
)

func pollFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDirectoryVanishes: when the capture directory is deleted, the writer
// says so (Problem), counts the lost records as dropped, and writes again
// once the directory is back.
func TestDirectoryVanishes(t *testing.T) {
	cfg := testConfig(t)
	cfg.Clock = time.Now
	cfg.FlushInterval = 20 * time.Millisecond
	w := newWriter(t, cfg)
	obs := sampleObservations()
	observe := func(n int) {
		for i := 0; i < n; i++ {
			o := *obs[i%len(obs)]
			w.Observe(&o)
		}
	}
	observe(10)
	flushWriter(t, w)
	if p := w.Problem(); p != "" {
		t.Fatalf("healthy writer reports %q", p)
	}
	if err := os.RemoveAll(cfg.Dir); err != nil {
		t.Fatal(err)
	}
	pollFor(t, "the problem to be reported", func() bool { return w.Problem() != "" })
	if p := w.Problem(); !strings.Contains(p, "no longer on disk") {
		t.Errorf("Problem = %q", p)
	}
	if d := w.Stats().Dropped; d < 10 {
		t.Errorf("Dropped = %d after losing a segment of 10 records", d)
	}
	observe(5) // no directory: dropped, and the problem names the open failure
	pollFor(t, "records dropped while the directory is gone", func() bool { return w.Stats().Dropped >= 15 })
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	pollFor(t, "capture to write again", func() bool {
		observe(1)
		return w.Problem() == ""
	})
	flushWriter(t, w)
	if recs := readDirRecords(t, cfg.Dir); len(recs) == 0 {
		t.Error("no records written after the directory came back")
	}
}
