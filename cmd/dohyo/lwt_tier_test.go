package main

import (
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/internal/lwtcheck"
)

// Jepsen-style checks of LWT through a tier of three `dohyo serve`
// processes (startTier's harness) over one HBase: gocql clients pinned to
// each instance run CAS (UPDATE … IF v = ?), SERIAL reads and LWT writes
// (UPDATE … IF EXISTS) on three keys while faults are injected; the
// history, failed operations as indeterminate, must be linearizable
// (internal/lwtcheck's register model, porcupine).
//
// DOHYO_TEST_TIER_BIN runs the instances from another dohyo build, e.g.
// one from before coordination cells, to show that the check catches it.

// TestServeTierLWTLinearizable kills one instance with SIGKILL a quarter
// of the way in; its clients carry on through the others.
func TestServeTierLWTLinearizable(t *testing.T) {
	checkTierLWT(t, 15*time.Second, nil)
}

// TestServeTierLWTLinearizableAcrossFaults kills one instance with SIGKILL
// a quarter of the way in and then stops and starts HBase (master, region
// server and ZooKeeper: it/hbase/run.sh) mid-run. It restarts the HBase of
// DOHYO_TEST_HBASE_ZK through DOHYO_TEST_HBASE_SCRIPT, so it runs only
// with DOHYO_TEST_DISRUPTIVE=1 (make test's disruptive step).
func TestServeTierLWTLinearizableAcrossFaults(t *testing.T) {
	externalTool(t, "DOHYO_TEST_HBASE_ZK")
	if os.Getenv("DOHYO_TEST_DISRUPTIVE") != "1" {
		t.Skip("restarts HBase; runs in its own step (DOHYO_TEST_DISRUPTIVE=1)")
	}
	script := externalTool(t, "DOHYO_TEST_HBASE_SCRIPT")
	restarted := true
	t.Cleanup(func() {
		if !restarted { // leave HBase running for whoever comes next
			runTool(t, 5*time.Minute, script, "start")
			runTool(t, 5*time.Minute, script, "wait")
		}
	})
	checkTierLWT(t, 20*time.Second, func() {
		restarted = false
		for _, step := range []string{"stop", "start", "wait"} {
			t0 := time.Now()
			out, err := runTool(t, 5*time.Minute, script, step)
			t.Logf("HBase %s: %v", step, time.Since(t0).Round(time.Millisecond))
			if err != nil {
				t.Errorf("%s %s: %v\n%s", script, step, err, out)
				return
			}
		}
		restarted = true
	})
}

// tierLWTBinary is the dohyo build the LWT checks run: the race build,
// or (race=false) the plain one, lighter on a loaded machine while HBase
// restarts.
func tierLWTBinary(t *testing.T, race bool) string {
	if bin := os.Getenv("DOHYO_TEST_TIER_BIN"); bin != "" {
		return bin
	}
	if !race {
		return plainBinary(t)
	}
	return dohyoBinary(t)
}

// checkTierLWT records about duration of history from 3 clients on each
// of 3 instances: instance 2 is killed at duration/4; restartHBase, when
// set, runs at duration/2 and the run goes on for duration/3 after it.
func checkTierLWT(t *testing.T, duration time.Duration, restartHBase func()) {
	tr := newTier(t, tierLWTBinary(t, restartHBase == nil), 3)
	// The schema exists before the others start, so that builds which load
	// the catalog only at start (before the shared catalog) run it too.
	tr.start(0)
	first := tierSession(t, tr.addrs[0])
	ks := tierKS(t)
	mustExec(t, first, "CREATE KEYSPACE "+ks+" WITH replication = "+tierReplication)
	t.Cleanup(func() { _ = first.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	mustExec(t, first, "CREATE TABLE "+ks+".r (k int PRIMARY KEY, v int)")
	for k := range 3 {
		mustExec(t, first, "INSERT INTO "+ks+".r (k, v) VALUES (?, 0)", k)
	}
	tr.start(1)
	tr.start(2)
	sessions := []*gocql.Session{first, tierSession(t, tr.addrs[1]), tierSession(t, tr.addrs[2])}

	start := time.Now()
	var end atomic.Int64 // UnixNano; the HBase restart pushes it on
	end.Store(start.Add(duration).UnixNano())
	var restartTo, answeredAfter atomic.Int64 // UnixNano; answered ops called after it
	// more says whether the clients go on: until end, all through the
	// HBase restart, and after it until 100 operations were answered (at
	// most a minute more).
	more := func() bool {
		now := time.Now().UnixNano()
		if now < end.Load() {
			return true
		}
		if restartHBase == nil {
			return false
		}
		to := restartTo.Load()
		return to == 0 || (answeredAfter.Load() < 100 && now < to+int64(time.Minute))
	}
	var killed atomic.Bool
	var history lwtcheck.History
	var wg sync.WaitGroup
	const clientsPer = 3
	for i := range sessions {
		for c := range clientsPer {
			id := i*clientsPer + c
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(id), 11))
				failing := false
				for n := 0; n < 3000 && more(); n++ {
					s := sessions[i]
					if i == 2 && killed.Load() {
						s = sessions[id%2] // reconnect elsewhere
					}
					call := time.Now().UnixNano()
					// After a failure the client probes with SERIAL reads
					// until one is answered: a failed read says nothing, so
					// a fault leaves at most one indeterminate write or CAS
					// per client (each widens porcupine's search).
					if err := tierLWTOp(s, ks, r, id, failing, &history); err != nil {
						failing = true
						time.Sleep(100 * time.Millisecond) // back off while a fault lasts
						continue
					}
					failing = false
					if to := restartTo.Load(); to != 0 && call > to {
						answeredAfter.Add(1)
					}
				}
			}()
		}
	}
	// The faults' moments (not synchronisation: the clients run on).
	time.Sleep(duration / 4)
	killAt := time.Now()
	tr.kill(2)
	killed.Store(true)
	var restartFrom time.Time
	if restartHBase != nil {
		time.Sleep(time.Until(start.Add(duration / 2)))
		restartFrom = time.Now()
		restartHBase()
		now := time.Now()
		end.Store(max(end.Load(), now.Add(duration/3).UnixNano()))
		restartTo.Store(now.UnixNano())
	}
	wg.Wait()
	t.Logf("9 clients on 3 dohyo processes for %v", time.Since(start).Round(time.Millisecond))
	checkFaultSpans(t, history.Ops(), "SIGKILL", killAt, killAt)
	if restartHBase != nil {
		to := time.Unix(0, restartTo.Load())
		t.Logf("HBase restart took %v", to.Sub(restartFrom).Round(time.Millisecond))
		checkFaultSpans(t, history.Ops(), "HBase restart", restartFrom, to)
	}
	history.Check(t)
}

// checkFaultSpans fails t unless the history has operations answered
// before the fault (from..to) and operations answered (not failed) that
// started after it.
func checkFaultSpans(t *testing.T, ops []porcupine.Operation, fault string, from, to time.Time) {
	t.Helper()
	var before, after int
	for _, op := range ops {
		unknown := op.Output.(lwtcheck.Output).Unknown
		if !unknown && op.Return < from.UnixNano() {
			before++
		}
		if !unknown && op.Call > to.UnixNano() {
			after++
		}
	}
	t.Logf("%s: %d operations answered before it, %d started after it and answered", fault, before, after)
	if before == 0 || after == 0 {
		t.Errorf("the history must have answered operations before and after the %s", fault)
	}
}

// tierLWTOp runs one random operation (a SERIAL read when readOnly)
// through s and records it.
func tierLWTOp(s *gocql.Session, ks string, r *rand.Rand, client int, readOnly bool, h *lwtcheck.History) error {
	in := lwtcheck.RandomInput(r)
	if readOnly {
		in.Op = lwtcheck.Read
	}
	call := time.Now()
	var out lwtcheck.Output
	var err error
	switch in.Op {
	case lwtcheck.Read:
		var v int
		err = s.Query("SELECT v FROM "+ks+".r WHERE k = ?", in.Key).Consistency(gocql.Consistency(gocql.Serial)).Scan(&v)
		out.Val = v
	case lwtcheck.Write:
		_, err = s.Query("UPDATE "+ks+".r SET v = ? WHERE k = ? IF EXISTS", in.Val, in.Key).MapScanCAS(map[string]any{})
	case lwtcheck.CAS:
		out.OK, err = s.Query("UPDATE "+ks+".r SET v = ? WHERE k = ? IF v = ?", in.Val, in.Key, in.Old).MapScanCAS(map[string]any{})
	}
	h.Add(client, in, out, call, time.Now(), err)
	return err
}
