package replay

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/capture"
)

var epoch = time.Unix(1_000_000, 0)

type observed struct {
	op *Op
	tm Timing
}

// runFake runs ops on a fake clock; exec may use the clock to take time.
func runFake(t *testing.T, opts ScheduleOptions, ops []*Op, exec Exec) ([]observed, RunStats, *FakeClock) {
	t.Helper()
	clk := NewFakeClock(epoch)
	opts.Clock = clk
	s, err := NewScheduler(opts)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []observed
	if exec == nil {
		exec = func(context.Context, *Op) {}
	}
	st, err := s.Run(context.Background(), &sliceSource{ops: ops}, exec, func(op *Op, tm Timing) {
		mu.Lock()
		got = append(got, observed{op, tm})
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ops) {
		t.Fatalf("observed %d ops, want %d", len(got), len(ops))
	}
	return got, st, clk
}

// mkOps builds ops at the given captured offsets (ns), round-robin over
// sessions.
func mkOps(offsets []int64, sessions int) []*Op {
	ops := make([]*Op, len(offsets))
	for i, off := range offsets {
		ops[i] = &Op{Index: int64(i), Key: SessionKey{Node: "n", Session: uint64(i % sessions)},
			Time: 5_000_000_000 + off, Recs: []*capture.Record{{Seq: uint64(i)}}}
	}
	return ops
}

func TestReplaySpeedTimingExact(t *testing.T) {
	offsets := []int64{0, 1, 999, 1_000_000, 333_333_333, 1_000_000_007, 7_777_777_777, 10_000_000_001}
	for _, speed := range []float64{1, 2, 0.5, 3.7} {
		for _, sessions := range []int{1, 3} {
			got, _, _ := runFake(t, ScheduleOptions{Mode: ModeSpeed, Speed: speed}, mkOps(offsets, sessions), nil)
			for _, o := range got {
				off := o.op.Time - 5_000_000_000
				want := epoch.Add(time.Duration(math.Round(float64(off) / speed)))
				if !o.tm.Due.Equal(want) || !o.tm.Sent.Equal(want) {
					t.Errorf("speed %v sessions %d op %d: due %v sent %v, want %v", speed, sessions, o.op.Index,
						o.tm.Due.Sub(epoch), o.tm.Sent.Sub(epoch), want.Sub(epoch))
				}
				if o.tm.Lag() != 0 || o.tm.Intended() != 0 {
					t.Errorf("speed %v op %d: lag %v intended %v, want 0", speed, o.op.Index, o.tm.Lag(), o.tm.Intended())
				}
			}
		}
	}
}

func TestReplaySpeedNoDriftOverLongRuns(t *testing.T) {
	// 10,000 ops 1ms apart at speed 3.7: the last one must be due at exactly
	// round(9999ms/3.7), not the sum of 9999 rounded steps.
	offs := make([]int64, 10000)
	for i := range offs {
		offs[i] = int64(i) * 1_000_000
	}
	got, _, _ := runFake(t, ScheduleOptions{Mode: ModeSpeed, Speed: 3.7, QueueLen: 20000}, mkOps(offs, 1), nil)
	last := got[len(got)-1]
	want := time.Duration(math.Round(9999e6 / 3.7))
	if d := last.tm.Due.Sub(epoch); d != want {
		t.Fatalf("last due %v, want %v", d, want)
	}
}

func TestReplayRateMode(t *testing.T) {
	// Captured times are irregular; rate mode ignores them.
	offsets := []int64{0, 5, 5, 9_000_000_000, 9_000_000_001, 20_000_000_000}
	got, _, _ := runFake(t, ScheduleOptions{Mode: ModeRate, Rate: 4}, mkOps(offsets, 2), nil)
	for _, o := range got {
		want := time.Duration(o.op.Index) * 250 * time.Millisecond
		if d := o.tm.Due.Sub(epoch); d != want {
			t.Errorf("op %d due %v, want %v", o.op.Index, d, want)
		}
	}
}

func TestReplayMaxModeConcurrencyAndOrder(t *testing.T) {
	const sessions, perSession, conc = 8, 50, 3
	var ops []*Op
	for i := 0; i < sessions*perSession; i++ {
		ops = append(ops, &Op{Index: int64(i), Key: SessionKey{Session: uint64(i % sessions)}, Time: int64(i) * 1e9,
			Recs: []*capture.Record{{Seq: uint64(i / sessions)}}})
	}
	var mu sync.Mutex
	inflight, peak := 0, 0
	clk := NewFakeClock(epoch)
	exec := func(ctx context.Context, op *Op) {
		mu.Lock()
		inflight++
		if inflight > peak {
			peak = inflight
		}
		mu.Unlock()
		// Take virtual time so that several sessions overlap.
		<-clk.NewTimer(time.Millisecond).C()
		mu.Lock()
		inflight--
		mu.Unlock()
	}
	s, err := NewScheduler(ScheduleOptions{Mode: ModeMax, Concurrency: conc, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	last := map[uint64]uint64{}
	seen := map[uint64]bool{}
	_, err = s.Run(context.Background(), &sliceSource{ops: ops}, exec, func(op *Op, tm Timing) {
		mu.Lock()
		defer mu.Unlock()
		k := op.Key.Session
		if seen[k] && op.Recs[0].Seq != last[k]+1 {
			t.Errorf("session %d: seq %d after %d", k, op.Recs[0].Seq, last[k])
		}
		seen[k], last[k] = true, op.Recs[0].Seq
	})
	if err != nil {
		t.Fatal(err)
	}
	if peak > conc || peak < 2 {
		t.Fatalf("peak in-flight %d, want 2..%d", peak, conc)
	}
}

func TestReplayPerSessionOrderUnderSpeed(t *testing.T) {
	offs := make([]int64, 300)
	for i := range offs {
		offs[i] = int64(i%7) * 1000 * int64(i) // irregular but non-decreasing enough per session
	}
	// Force non-decreasing merged order.
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			offs[i] = offs[i-1]
		}
	}
	got, _, _ := runFake(t, ScheduleOptions{Mode: ModeSpeed, Speed: 2}, mkOps(offs, 5), func(ctx context.Context, op *Op) {})
	last := map[uint64]int64{}
	for k := range last {
		delete(last, k)
	}
	bySession := map[uint64][]int64{}
	for _, o := range got {
		bySession[o.op.Key.Session] = append(bySession[o.op.Key.Session], o.op.Index)
	}
	for s, idx := range bySession {
		for i := 1; i < len(idx); i++ {
			if idx[i] <= idx[i-1] {
				t.Fatalf("session %d executed op %d after %d", s, idx[i], idx[i-1])
			}
		}
	}
}

func TestReplaySlowTargetAccumulatesLag(t *testing.T) {
	// One session, ops due every 10ms, each taking 25ms: op i is sent at
	// 25ms·i, so its lag is 15ms·i and its intended latency 15ms·i + 25ms.
	const n = 20
	offs := make([]int64, n)
	for i := range offs {
		offs[i] = int64(i) * 10_000_000
	}
	var clk *FakeClock
	clkReady := make(chan struct{})
	exec := func(ctx context.Context, op *Op) {
		<-clkReady
		<-clk.NewTimer(25 * time.Millisecond).C()
	}
	clk = NewFakeClock(epoch)
	close(clkReady)
	s, err := NewScheduler(ScheduleOptions{Mode: ModeSpeed, Speed: 1, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	var got []observed
	var mu sync.Mutex
	st, err := s.Run(context.Background(), &sliceSource{ops: mkOps(offs, 1)}, exec, func(op *Op, tm Timing) {
		mu.Lock()
		got = append(got, observed{op, tm})
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		i := time.Duration(o.op.Index)
		if lag := o.tm.Lag(); lag != 15*time.Millisecond*i {
			t.Errorf("op %d lag %v, want %v", i, lag, 15*time.Millisecond*i)
		}
		if a := o.tm.Actual(); a != 25*time.Millisecond {
			t.Errorf("op %d actual %v, want 25ms", i, a)
		}
		if in := o.tm.Intended(); in != 15*time.Millisecond*i+25*time.Millisecond {
			t.Errorf("op %d intended %v", i, in)
		}
	}
	if d := st.End.Sub(st.Start); d != n*25*time.Millisecond {
		t.Errorf("run took %v, want %v", d, n*25*time.Millisecond)
	}
}

func TestReplaySessionsIndependent(t *testing.T) {
	// Session 0 is slow; session 1's ops must still go out on time.
	offs := []int64{0, 1e6, 2e6, 3e6, 4e6, 5e6}
	clk := NewFakeClock(epoch)
	exec := func(ctx context.Context, op *Op) {
		if op.Key.Session == 0 {
			<-clk.NewTimer(time.Second).C()
		}
	}
	s, _ := NewScheduler(ScheduleOptions{Mode: ModeSpeed, Speed: 1, Clock: clk})
	var mu sync.Mutex
	_, err := s.Run(context.Background(), &sliceSource{ops: mkOps(offs, 2)}, exec, func(op *Op, tm Timing) {
		mu.Lock()
		defer mu.Unlock()
		if op.Key.Session == 1 && tm.Lag() != 0 {
			t.Errorf("op %d of the fast session lagged %v", op.Index, tm.Lag())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReplayDurationTruncates(t *testing.T) {
	offs := []int64{0, 1e9, 2e9, 3e9}
	clk := NewFakeClock(epoch)
	s, _ := NewScheduler(ScheduleOptions{Mode: ModeSpeed, Speed: 1, Clock: clk, Duration: 1500 * time.Millisecond})
	st, err := s.Run(context.Background(), &sliceSource{ops: mkOps(offs, 1)}, func(context.Context, *Op) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Ops != 2 || !st.Truncated {
		t.Fatalf("ops %d truncated %v, want 2 true", st.Ops, st.Truncated)
	}
}

func TestReplayValidate(t *testing.T) {
	for _, o := range []ScheduleOptions{{Mode: ModeSpeed}, {Mode: ModeSpeed, Speed: -1}, {Mode: ModeRate}, {Mode: Mode(9)}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestReplayBarrierRunsAlone(t *testing.T) {
	// Session 0 runs a schema change (10ms) at t=0; session 1's op due at
	// 1ms must wait for it, and the schema change waits for the op due
	// before it.
	clk := NewFakeClock(epoch)
	ops := mkOps([]int64{0, 0, 1e6}, 2)
	ops[0].Key.Session, ops[1].Key.Session, ops[2].Key.Session = 1, 0, 1
	ops[1].Barrier = true
	exec := func(ctx context.Context, op *Op) {
		<-clk.NewTimer(10 * time.Millisecond).C()
	}
	s, _ := NewScheduler(ScheduleOptions{Mode: ModeSpeed, Speed: 1, Clock: clk})
	sent := map[int64]time.Duration{}
	var lag2 time.Duration
	var mu sync.Mutex
	st, err := s.Run(context.Background(), &sliceSource{ops: ops}, exec, func(op *Op, tm Timing) {
		mu.Lock()
		sent[op.Index] = tm.Sent.Sub(epoch)
		if op.Index == 2 {
			lag2 = tm.Lag()
		}
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Paused != 20*time.Millisecond || lag2 != 0 {
		t.Fatalf("paused %v, op 2 lag %v; want 20ms and 0", st.Paused, lag2)
	}
	// The schedule pauses from the barrier's due time (0) to its end
	// (20ms): op 2, due at 1ms, is due at 21ms and is not late.
	want := map[int64]time.Duration{0: 0, 1: 10 * time.Millisecond, 2: 21 * time.Millisecond}
	if fmt.Sprint(sent) != fmt.Sprint(want) {
		t.Fatalf("sent at %v, want %v", sent, want)
	}
}

func TestReplaySmallQueueSlowSession(t *testing.T) {
	// One session, ops due every 1ms, each taking 5ms, a queue of 2: the
	// dispatcher waits for room (not on time) and every op still runs,
	// in order, sent when the previous one completes.
	const n = 40
	offs := make([]int64, n)
	for i := range offs {
		offs[i] = int64(i) * 1_000_000
	}
	var clk *FakeClock
	clk = NewFakeClock(epoch)
	exec := func(ctx context.Context, op *Op) { <-clk.NewTimer(5 * time.Millisecond).C() }
	for _, mode := range []ScheduleOptions{{Mode: ModeSpeed, Speed: 1, QueueLen: 2, Clock: clk}, {Mode: ModeMax, QueueLen: 2, Clock: clk}} {
		s, err := NewScheduler(mode)
		if err != nil {
			t.Fatal(err)
		}
		var got []observed
		start := clk.Now()
		if _, err := s.Run(context.Background(), &sliceSource{ops: mkOps(offs, 1)}, exec, func(op *Op, tm Timing) {
			got = append(got, observed{op, tm}) // one session: no concurrent calls
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%v: %d ops observed, want %d", mode.Mode, len(got), n)
		}
		for i, o := range got {
			if o.op.Index != int64(i) {
				t.Fatalf("%v: op %d observed at position %d", mode.Mode, o.op.Index, i)
			}
			if want := start.Add(time.Duration(i) * 5 * time.Millisecond); !o.tm.Sent.Equal(want) {
				t.Errorf("%v: op %d sent at %v, want %v", mode.Mode, i, o.tm.Sent.Sub(start), want.Sub(start))
			}
		}
	}
}

func TestReplayManySessionsMaxBatches(t *testing.T) {
	// More ops than one hand-off batch per session, at --max on the real
	// clock: every op runs exactly once and in order within its session.
	const sessions, n = 7, 5000
	ops := make([]*Op, n)
	for i := range ops {
		ops[i] = &Op{Index: int64(i), Key: SessionKey{Session: uint64(i % sessions)}, Recs: []*capture.Record{{Seq: uint64(i / sessions)}}}
	}
	s, err := NewScheduler(ScheduleOptions{Mode: ModeMax, Concurrency: 3, QueueLen: 100})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	next := map[uint64]uint64{}
	count := 0
	st, err := s.RunBatched(context.Background(), &sliceSource{ops: ops}, func(context.Context, *Op) {}, func(ops []*Op, tms []Timing) {
		mu.Lock()
		defer mu.Unlock()
		for i, op := range ops {
			k := op.Key.Session
			if op.Recs[0].Seq != next[k] {
				t.Errorf("session %d: seq %d, want %d", k, op.Recs[0].Seq, next[k])
			}
			next[k] = op.Recs[0].Seq + 1
			if tms[i].Done.Before(tms[i].Sent) || tms[i].Lag() != 0 {
				t.Errorf("op %d: timing %+v", op.Index, tms[i])
			}
			count++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if count != n || st.Ops != n {
		t.Fatalf("observed %d, dispatched %d; want %d", count, st.Ops, n)
	}
}

func TestReplayRealClockWaitUntil(t *testing.T) {
	// Never early, whatever the spin; false once ctx has ended.
	for _, spin := range []time.Duration{0, 50 * time.Microsecond, 3 * time.Millisecond} {
		for _, d := range []time.Duration{-time.Millisecond, 0, 200 * time.Microsecond, 2500 * time.Microsecond} {
			due := time.Now().Add(d)
			if !(RealClock{}).WaitUntil(context.Background(), due, spin) {
				t.Fatalf("spin %v d %v: false without cancellation", spin, d)
			}
			if now := time.Now(); now.Before(due) {
				t.Fatalf("spin %v d %v: returned %v early", spin, d, due.Sub(now))
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if (RealClock{}).WaitUntil(ctx, time.Now().Add(time.Hour), DefaultSpin) {
		t.Fatal("true after cancellation")
	}
}
