package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

// A tier harness: n real `dohyo serve` processes over the real HBase, one
// catalog, as one cluster. Instance i listens on 127.0.0.(i+1) and every
// instance on the same CQL port, because drivers reach the peers that
// system.peers lists on the contact point's port.
//
//	tr := startTier(t, 3)   // tr.addrs: CQL host:port of each instance
//	tr.kill(1)              // SIGKILL, as a crash
//	tr.start(1)             // again: same address, same catalog
type tierHarness struct {
	t       testing.TB
	bin     string // the dohyo build the instances run
	backend string
	port    int
	addrs   []string
	procs   []*serveProc
}

// startTier starts n instances (at most 8) over a fresh catalog on the
// HBase named by DOHYO_TEST_HBASE_ZK; extra arguments go to every
// instance. Without HBase the test is skipped (a failure under CI=true).
func startTier(t testing.TB, n int, extra ...string) *tierHarness {
	t.Helper()
	return startTierBin(t, dohyoBinary(t), n, extra...)
}

// startTierBin is startTier with another build of dohyo (benchmarks).
func startTierBin(t testing.TB, bin string, n int, extra ...string) *tierHarness {
	t.Helper()
	tr := newTier(t, bin, n)
	for i := range n {
		tr.start(i, extra...)
	}
	return tr
}

// newTier lays out a tier of n instances of bin (addresses, catalog)
// without starting any: tr.start(i) starts instance i.
func newTier(t testing.TB, bin string, n int) *tierHarness {
	t.Helper()
	zk := os.Getenv("DOHYO_TEST_HBASE_ZK")
	if zk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_HBASE_ZK is not set: CI runs the tier tests on HBase (run via make test)")
		}
		t.Skip("DOHYO_TEST_HBASE_ZK not set: the tier tests need HBase")
	}
	tr := &tierHarness{
		t:       t,
		bin:     bin,
		backend: fmt.Sprintf("hbase://%s?salt=4&catalog=tier%d", zk, time.Now().UnixNano()),
		port:    freeTierPort(t, n),
		procs:   make([]*serveProc, n),
	}
	for i := range n {
		tr.addrs = append(tr.addrs, net.JoinHostPort(tierHost(i), strconv.Itoa(tr.port)))
	}
	return tr
}

func tierHost(i int) string { return fmt.Sprintf("127.0.0.%d", i+1) }

func (tr *tierHarness) args(i int, extra []string) []string {
	return append([]string{"--backend", tr.backend, "--cql-addr", tr.addrs[i],
		"--http-addr", tierHost(i) + ":0", "--node-id", fmt.Sprintf("tier-%d", i)}, extra...)
}

// kill ends instance i with SIGKILL and waits for it to exit.
func (tr *tierHarness) kill(i int) {
	tr.t.Helper()
	p := tr.procs[i]
	if err := p.cmd.Process.Kill(); err != nil {
		tr.t.Fatalf("kill instance %d: %v", i, err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		tr.t.Fatalf("instance %d did not exit after SIGKILL", i)
	}
}

// start starts instance i on its address (again, after kill).
func (tr *tierHarness) start(i int, extra ...string) {
	tr.t.Helper()
	tr.procs[i] = startServeBin(tr.t, tr.bin, nil, tr.args(i, extra)...)
}

// freeTierPort finds a port free on the n tier addresses.
func freeTierPort(t testing.TB, n int) int {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", tierHost(0)+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ok := true
		lns := []net.Listener{ln}
		for i := 1; i < n && ok; i++ {
			l, err := net.Listen("tcp", net.JoinHostPort(tierHost(i), strconv.Itoa(port)))
			if err != nil {
				ok = false
				continue
			}
			lns = append(lns, l)
		}
		for _, l := range lns {
			l.Close()
		}
		if ok {
			return port
		}
	}
	t.Fatal("no port free on every tier address")
	return 0
}
