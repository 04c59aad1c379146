package main

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"
)

// readinessOf returns the readiness status code and the backends' states.
func readinessOf(httpAddr string) (int, map[string]string) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + httpAddr + "/health/readiness")
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var body struct {
		Backends map[string]struct{ Status string } `json:"backends"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	states := map[string]string{}
	for name, b := range body.Backends {
		states[name] = b.Status
	}
	return resp.StatusCode, states
}

// TestReadinessFollowsHBase stops the real HBase under a running dohyo
// serve: readiness turns 503 naming the HBase backend DOWN (liveness stays
// 200), and returns to 200 once HBase is back. It restarts HBase itself
// when it fails half-way, so the servers' other users are not left
// without one.
func TestReadinessFollowsHBase(t *testing.T) {
	zk := externalTool(t, "DOHYO_TEST_HBASE_ZK")
	script := externalTool(t, "DOHYO_TEST_HBASE_SCRIPT")
	if testing.Short() {
		t.Skip("stops and restarts HBase")
	}
	// Stopping the shared HBase would break tests of other packages running
	// in parallel: `make test` runs this test in a step of its own, with
	// DOHYO_TEST_DISRUPTIVE=1, after the parallel run.
	if os.Getenv("DOHYO_TEST_DISRUPTIVE") != "1" {
		t.Skip("stops the shared HBase; runs in its own step (DOHYO_TEST_DISRUPTIVE=1)")
	}
	backend := "hbase://" + zk + "?timeout=3s&catalog=readiness"
	p := startServe(t, "--backend", backend)
	poll(t, time.Minute, "readiness 200 with HBase up", func() bool {
		code, _ := readinessOf(p.HTTPAddr)
		return code == http.StatusOK
	})

	restarted := false
	t.Cleanup(func() {
		if !restarted {
			runTool(t, 5*time.Minute, script, "start")
			runTool(t, 5*time.Minute, script, "wait")
		}
	})
	if out, err := runTool(t, 5*time.Minute, script, "stop"); err != nil {
		t.Fatalf("%s stop: %v\n%s", script, err, out)
	}
	poll(t, 2*time.Minute, "readiness 503 with HBase stopped", func() bool {
		code, states := readinessOf(p.HTTPAddr)
		return code == http.StatusServiceUnavailable && states[backend] == "DOWN"
	})
	resp, err := http.Get("http://" + p.HTTPAddr + "/health/liveness")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("liveness with HBase down: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}

	if out, err := runTool(t, 5*time.Minute, script, "start"); err != nil {
		t.Fatalf("%s start: %v\n%s", script, err, out)
	}
	restarted = true
	if out, err := runTool(t, 5*time.Minute, script, "wait"); err != nil {
		t.Fatalf("%s wait: %v\n%s", script, err, out)
	}
	poll(t, 3*time.Minute, "readiness 200 with HBase back", func() bool {
		code, states := readinessOf(p.HTTPAddr)
		return code == http.StatusOK && states[backend] == "UP"
	})
}
