package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/internal/lwtcheck"
)

// TestServeTierLWTLinearizable runs three `dohyo serve` processes over one
// HBase; gocql clients of each run CAS (UPDATE … IF v = ?), SERIAL reads
// and LWT writes (UPDATE … IF EXISTS) on three keys, and one process is
// killed with SIGKILL a third of the way in (its clients then carry on
// through another instance). The history, with the killed process's
// unanswered operations as indeterminate, must be linearizable.
func TestServeTierLWTLinearizable(t *testing.T) {
	zk := os.Getenv("DOHYO_TEST_HBASE_ZK")
	if zk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_HBASE_ZK is not set: CI runs the tier tests on HBase (run via make test)")
		}
		t.Skip("DOHYO_TEST_HBASE_ZK not set")
	}
	backend := fmt.Sprintf("hbase://%s?catalog=tierlwt%d", zk, time.Now().UnixNano())
	ks := fmt.Sprintf("tier_lwt_%d", time.Now().UnixNano()%1_000_000)
	procs := []*serveProc{startServe(t, "--backend", backend)}
	first := gocqlSession(t, procs[0].CQLAddr, 4, nil)
	mustExec(t, first, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, first, "CREATE TABLE "+ks+".r (k int PRIMARY KEY, v int)")
	t.Cleanup(func() { _ = first.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	const keys = 3
	for k := range keys {
		mustExec(t, first, "INSERT INTO "+ks+".r (k, v) VALUES (?, 0)", k)
	}
	// The others load the catalog when they start.
	for range 2 {
		procs = append(procs, startServe(t, "--backend", backend))
	}
	sessions := []*gocql.Session{first}
	for _, p := range procs[1:] {
		sessions = append(sessions, gocqlSession(t, p.CQLAddr, 4, nil))
	}

	duration := 15 * time.Second
	start := time.Now()
	end := start.Add(duration)
	var killed atomic.Bool
	var history lwtcheck.History
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(duration / 3) // the fault's moment, not a synchronisation
		_ = procs[2].cmd.Process.Kill()
		<-procs[2].done
		killed.Store(true) // its clients move to the others
	}()
	const clientsPer = 3
	var afterKill atomic.Int64
	for i := range sessions {
		for c := range clientsPer {
			id := i*clientsPer + c
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(id), 11))
				for n := 0; n < 3000 && time.Now().Before(end); n++ {
					s := sessions[i]
					if i == 2 && killed.Load() {
						s = sessions[id%2] // reconnect elsewhere
					}
					if killed.Load() {
						afterKill.Add(1)
					}
					tierLWTOp(s, ks, r, id, &history)
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("9 clients on 3 dohyo processes for %v; %d operations after the kill", time.Since(start).Round(time.Millisecond), afterKill.Load())
	if afterKill.Load() == 0 {
		t.Error("no operation ran after the kill")
	}
	history.Check(t)
}

func tierLWTOp(s *gocql.Session, ks string, r *rand.Rand, client int, h *lwtcheck.History) {
	in := lwtcheck.RandomInput(r)
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
}
