package mirror_test

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/faulty"
	"github.com/dohyo/dohyo/mirror"
)

// TestMirrorReport: the live comparison as a replay-format report. Three
// minutes of traffic are three rounds; a mirror whose reads are held 5 ms
// is slower than the primary in the verdict; a row changed on the mirror
// is a mismatch against the primary; a shorter window keeps only the
// minutes it overlaps; the text and HTML forms render.
func TestMirrorReport(t *testing.T) {
	copyBackend := faulty.Wrap(open(t))
	remove := copyBackend.InjectFault(faulty.Fault{Match: "SELECT", Delay: 5 * time.Millisecond})
	defer remove()
	e := newEnv(t, 1, copyBackend, 0)
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(t0.UnixNano())
	mirror.SetClock(e.m, func() time.Time { return time.Unix(0, clock.Load()) })
	if _, err := copyBackend.Execute(t.Context(), &bindings.Request{Query: "INSERT INTO ks.t (k, c, v) VALUES (99, 1, 'only on the mirror')"}); err != nil {
		t.Fatal(err)
	}
	for minute := 0; minute < 3; minute++ {
		clock.Store(t0.Add(time.Duration(minute)*time.Minute + 10*time.Second).UnixNano())
		for k := 0; k < 10; k++ {
			e.q(t, "INSERT INTO ks.t (k, c, v) VALUES (?, 1, 'a')", i32(k))
			e.q(t, "SELECT v FROM ks.t WHERE k = ? AND c = 1", i32(k))
		}
		if err := e.m.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	e.q(t, "SELECT v FROM ks.t WHERE k = ? AND c = 1", i32(99)) // no row on the primary, one on the mirror
	if err := e.m.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}

	r := e.m.Report(mirror.ReportOptions{Window: 10 * time.Minute, Primary: "embedded://"})
	if len(r.Runs) != 1 || r.Runs[0].Rounds != 3 {
		t.Fatalf("runs %d, rounds %v: want one run of 3 rounds (minutes)", len(r.Runs), r.Runs)
	}
	p, c := r.Runs[0].Targets[0], r.Runs[0].Targets[1]
	if p.Ops != c.Ops || c.Ops != 61 {
		t.Errorf("ops primary %d, mirror %d: want 61 applied requests on both sides", p.Ops, c.Ops)
	}
	if c.Compared != 31 || c.CrossMismatches != 1 {
		t.Errorf("compared %d, mismatches %d: want 31 sampled reads, 1 differing (the row only the mirror has)", c.Compared, c.CrossMismatches)
	}
	v := r.Verdicts[0]
	var sel *struct{ p50 float64 }
	for _, row := range v.Rows {
		if strings.HasPrefix(row.Class, "SELECT") {
			sel = &struct{ p50 float64 }{row.P50.Value}
		}
	}
	if sel == nil || sel.p50 < 2 {
		t.Errorf("SELECT p50 mirror/primary = %v, want > 2 (reads held 5 ms on the mirror); rows %+v", sel, v.Rows)
	}
	var text, html bytes.Buffer
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "mirror copy") {
		t.Errorf("text report (%v):\n%s", err, text.String())
	}
	if err := r.WriteHTML(&html); err != nil || !strings.Contains(html.String(), "Verdict") {
		t.Errorf("HTML report: %v", err)
	}
	short := e.m.Report(mirror.ReportOptions{Window: time.Minute})
	if got := short.Runs[0].Rounds; got != 2 {
		t.Errorf("a 1 min window at 10:02:10 overlaps 2 minutes, got %d rounds", got)
	}
}
