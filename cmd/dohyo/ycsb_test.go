package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ycsbWorkloads are the YCSB core workloads every target must complete.
var ycsbWorkloads = []string{"a", "b", "c", "d", "e", "f"}

// TestServeYCSB runs YCSB workloads A–F with the project's own binding
// (bench/ycsb: DataStax Java driver 4.x) directly against Cassandra, and
// through dohyo serve on the embedded store, on HBase and relaying to
// Cassandra. Every phase must report Return=OK and no other Return.
// DOHYO_TEST_YCSB is the binding's jar directory (it/ycsb/setup.sh -p).
func TestServeYCSB(t *testing.T) {
	lib := externalTool(t, "DOHYO_TEST_YCSB")
	script, err := filepath.Abs("../../bench/ycsb/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	backends := serveBackends(t)
	// Cassandra's keyspaces outlive the test: the direct run and the relay
	// each use their own, emptied by run.sh before loading.
	targets := []struct {
		name, keyspace string
		addr           func(t *testing.T) string
	}{
		{"cassandra", "ycsb_direct", func(t *testing.T) string {
			return externalTool(t, "DOHYO_TEST_CASSANDRA")
		}},
		{"embedded", "ycsb", func(t *testing.T) string {
			return startServe(t, "--backend", backends["embedded"]).CQLAddr
		}},
		{"hbase", "ycsb", func(t *testing.T) string {
			b, ok := backends["hbase"]
			if !ok {
				t.Skip("DOHYO_TEST_HBASE_ZK not set")
			}
			return startServe(t, "--backend", b).CQLAddr
		}},
		{"relay-cassandra", "ycsb_relay", func(t *testing.T) string {
			cass := externalTool(t, "DOHYO_TEST_CASSANDRA")
			return startServe(t, "--backend", "cassandra://"+cass).CQLAddr
		}},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.addr(t)
			runYCSB(t, script, lib, addr, tc.keyspace)
		})
	}
}

// runYCSB runs bench/ycsb/run.sh against addr and checks its outputs.
func runYCSB(t *testing.T, script, lib, addr, keyspace string) {
	t.Helper()
	outDir := t.TempDir()
	start := time.Now()
	out, err := runTool(t, 15*time.Minute, "env", "YCSB_LIB="+lib, script, addr,
		"--workloads", strings.Join(ycsbWorkloads, ","),
		"--records", "1000", "--ops", "1000", "--threads", "4",
		"--keyspace", keyspace, "--out", outDir)
	if err != nil {
		t.Fatalf("run.sh %s: %v\n%s", addr, err, out)
	}
	// run.sh checks every phase itself; check its raw outputs here too so
	// a blind spot in its parser cannot pass a broken run.
	for _, w := range ycsbWorkloads {
		for _, phase := range []string{"load", "run"} {
			name := filepath.Join(outDir, "workload"+w+"-"+phase+".txt")
			b, err := os.ReadFile(name)
			if err != nil {
				t.Errorf("workload %s %s: %v", w, phase, err)
				continue
			}
			text := string(b)
			if !strings.Contains(text, "Return=OK") || !strings.Contains(text, "[OVERALL], RunTime(ms)") {
				t.Errorf("workload %s %s: no Return=OK or no [OVERALL]:\n%s", w, phase, text)
			}
			for _, line := range strings.Split(text, "\n") {
				if strings.Contains(line, "Return=") && !strings.Contains(line, "Return=OK") {
					t.Errorf("workload %s %s: %s", w, phase, line)
				}
			}
		}
	}
	if scan, err := os.ReadFile(filepath.Join(outDir, "workloade-run.txt")); err == nil &&
		!strings.Contains(string(scan), "[SCAN], Return=OK") {
		t.Errorf("workload e ran no successful SCAN")
	}
	t.Logf("YCSB against %s (%s):\n%s", addr, time.Since(start).Round(time.Second), out)
}
