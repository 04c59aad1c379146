package hbase

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/internal/lwtcheck"
)

// A Jepsen-style check of LWT: clients on several engines (each its own
// HBase connection: separate processes as far as coordination goes) run
// CAS, SERIAL reads and LWT writes on a few keys; the history is checked
// against a register model with porcupine. Operations that fail (timeouts)
// are indeterminate: they may take effect at any time after their call.
//
// DOHYO_TEST_LWT_STRIPE_ONLY=1 runs the same check on engines with
// in-process stripe locks only (the engine before coordination cells), to
// show that the check catches that bug.

func TestLWTLinearizable(t *testing.T) {
	duration := 10 * time.Second
	if testing.Short() {
		duration = 3 * time.Second
	}
	checkLWTHistory(t, testZK(t), duration, nil)
}

// TestLWTLinearizableAcrossHBaseRestart runs the check while HBase (the
// standalone master + region server of it/hbase/run.sh) stops and starts
// again mid-run. It needs an HBase of its own: DOHYO_TEST_DISRUPTIVE=1,
// with DOHYO_TEST_HBASE_SCRIPT the run.sh controlling the HBase of
// DOHYO_TEST_HBASE_ZK.
func TestLWTLinearizableAcrossHBaseRestart(t *testing.T) {
	zk := testZK(t)
	if os.Getenv("DOHYO_TEST_DISRUPTIVE") != "1" {
		t.Skip("restarts HBase; runs in its own step (DOHYO_TEST_DISRUPTIVE=1)")
	}
	script := os.Getenv("DOHYO_TEST_HBASE_SCRIPT")
	if script == "" {
		t.Fatal("DOHYO_TEST_HBASE_SCRIPT is not set: the test needs it/hbase/run.sh to restart HBase")
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted { // leave HBase running for whoever comes next
			_, _ = runScript(script, "start")
			_, _ = runScript(script, "wait")
		}
	})
	checkLWTHistory(t, zk, 25*time.Second, func() {
		for _, step := range []string{"stop", "start", "wait"} {
			if out, err := runScript(script, step); err != nil {
				t.Errorf("%s %s: %v\n%s", script, step, err, out)
				return
			}
		}
		restarted = true
	})
}

func runScript(script, arg string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := osexec.CommandContext(ctx, script, arg).CombinedOutput()
	return string(out), err
}

// checkLWTHistory records a history of CAS, SERIAL reads and LWT writes
// from clients on three engines for about duration (inject, when set, runs
// a third of the way in, concurrently) and fails unless it is
// linearizable.
func checkLWTHistory(t *testing.T, zk string, duration time.Duration, inject func()) {
	var ks string
	const keys, instances, clientsPer = 3, 3, 3
	es := openTierOn(t, zk, instances, engine.Options{LWTLease: 2 * time.Second, LWTTimeout: 5 * time.Second}, stripeOnly(), func(e *engine.Engine) {
		ks = tierKeyspace(t, e, "CREATE TABLE %s.r (k int PRIMARY KEY, v int)")
		for k := range keys {
			exec(t, e, fmt.Sprintf("INSERT INTO %s.r (k, v) VALUES (%d, 0)", ks, k))
		}
	})
	start := time.Now()
	var end atomic.Int64 // UnixNano; a fault pushes it to a while after it ends
	end.Store(start.Add(duration).UnixNano())
	var faultFrom, faultTo atomic.Int64
	var history lwtcheck.History
	var wg sync.WaitGroup
	if inject != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(duration / 3) // the fault's moment, not a synchronisation
			faultFrom.Store(time.Now().UnixNano())
			inject()
			now := time.Now()
			faultTo.Store(now.UnixNano())
			end.Store(max(end.Load(), now.Add(duration/2).UnixNano()))
		}()
	}
	for i, e := range es {
		for c := range clientsPer {
			id := i*clientsPer + c
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(id), 7))
				for n := 0; n < 4000 && (time.Now().UnixNano() < end.Load() || (inject != nil && faultTo.Load() == 0)); n++ {
					lwtOp(t.Context(), e, ks, r, id, &history)
				}
			}()
		}
	}
	wg.Wait()
	var before, after int
	for _, op := range history.Ops() {
		if f := faultFrom.Load(); f != 0 && op.Return < f {
			before++
		}
		if f := faultTo.Load(); f != 0 && op.Call > f {
			after++
		}
	}
	t.Logf("%d clients on %d engines for %v", instances*clientsPer, instances, time.Since(start).Round(time.Millisecond))
	if inject != nil {
		t.Logf("fault for %v: %d operations ended before it, %d started after it",
			time.Duration(faultTo.Load()-faultFrom.Load()).Round(time.Millisecond), before, after)
		if before == 0 || after == 0 {
			t.Errorf("the history must have operations before and after the fault")
		}
	}
	history.Check(t)
}

// lwtOp runs one random operation and records it.
func lwtOp(ctx context.Context, e *engine.Engine, ks string, r *rand.Rand, client int, h *lwtcheck.History) {
	in := lwtcheck.RandomInput(r)
	call := time.Now()
	var out lwtcheck.Output
	var res *bindings.Result
	var err error
	switch in.Op {
	case lwtcheck.Read:
		res, err = run(ctx, e, "SELECT v FROM "+ks+".r WHERE k = ?", bindings.Serial, intVal(in.Key))
		if err == nil && len(res.Rows) == 1 {
			out.Val = int(int32(binary.BigEndian.Uint32(res.Rows[0][0])))
		}
	case lwtcheck.Write:
		_, err = run(ctx, e, "UPDATE "+ks+".r SET v = ? WHERE k = ? IF EXISTS", bindings.One, intVal(in.Val), intVal(in.Key))
	case lwtcheck.CAS:
		res, err = run(ctx, e, "UPDATE "+ks+".r SET v = ? WHERE k = ? IF v = ?", bindings.One, intVal(in.Val), intVal(in.Key), intVal(in.Old))
		if err == nil {
			out.OK = applied(res)
		}
	}
	h.Add(client, in, out, call, time.Now(), err)
}
