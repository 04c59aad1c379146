package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// The cluster tests (issue #46) run against the 3-node Cassandra of
// it/cassandra/cluster.sh, in their own step of `make test` (make
// cluster-test, after the single-node servers are stopped):
// DOHYO_TEST_CLUSTER=1, DOHYO_TEST_CASSANDRA_CLUSTER the nodes' CQL
// addresses (comma separated) and DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT the
// script that kills, pauses and restarts them (its CLUSTER_* environment
// is the test's). DOHYO_TEST_CLUSTER_KILL and DOHYO_TEST_CLUSTER_PAUSE pick
// the nodes to kill and to freeze (default 1, the first contact point,
// where dohyo's and gocql's control connections are, and 2). Tokens
// (cluster.sh's initial_token) and keys (writers 0-7) are fixed, so which
// node owns which writer's partition is too: each node owns some, and
// token-aware routing sends each node requests.

// cassandraCluster returns the cluster's contact points and its script.
func cassandraCluster(t *testing.T) ([]string, string) {
	t.Helper()
	if os.Getenv("DOHYO_TEST_CLUSTER") != "1" {
		t.Skip("needs the 3-node Cassandra cluster; runs in its own step (make cluster-test, DOHYO_TEST_CLUSTER=1)")
	}
	addrs, script := os.Getenv("DOHYO_TEST_CASSANDRA_CLUSTER"), os.Getenv("DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT")
	if addrs == "" || script == "" {
		t.Fatal("DOHYO_TEST_CLUSTER=1 but DOHYO_TEST_CASSANDRA_CLUSTER or DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT is not set (run via make cluster-test)")
	}
	return strings.Split(addrs, ","), script
}

// clusterNode returns the node number (1-3) an environment variable names,
// or def.
func clusterNode(t *testing.T, env string, def int) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		return strconv.Itoa(def)
	}
	if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 3 {
		t.Fatalf("%s=%q: want a node number, 1 to 3", env, v)
	}
	return v
}

// nodeIndex is the index in the contact points of node number n.
func nodeIndex(n string) int {
	i, _ := strconv.Atoi(n)
	return i - 1
}

// clusterOutcome is one request of the cluster load.
type clusterOutcome struct {
	at  time.Time
	err error
}

// clusterLoad is one side of the load: writers through one gocql session
// (to dohyo, or straight to the cluster), each writing its own partition
// at QUORUM and reading back what it just wrote.
type clusterLoad struct {
	name  string
	s     *gocql.Session
	first int // writer ids first..first+writers-1

	mu       sync.Mutex
	outcomes []clusterOutcome
	acked    map[int][]int64 // writer -> sequence numbers acknowledged
	stale    int             // reads that missed a write acknowledged before
	clientTO int             // gocql's own timeouts (nobody answered)
}

func (l *clusterLoad) record(at time.Time, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.outcomes = append(l.outcomes, clusterOutcome{at, err})
	if errors.Is(err, gocql.ErrTimeoutNoResponse) {
		l.clientTO++
	}
}

// run drives writer w until stop is closed (or maxOps requests), paced at
// one request per pace (a client's think time, not synchronisation).
func (l *clusterLoad) run(w int, stop <-chan struct{}, pace time.Duration, maxOps int) {
	for seq := int64(0); seq < int64(maxOps); seq++ {
		select {
		case <-stop:
			return
		case <-time.After(pace):
		}
		start := time.Now()
		err := l.s.Query("INSERT INTO clks.kv (w, seq, v) VALUES (?, ?, ?)", w, seq, seq*7).Exec()
		l.record(start, err)
		if err != nil {
			continue
		}
		l.mu.Lock()
		l.acked[w] = append(l.acked[w], seq)
		l.mu.Unlock()
		start = time.Now()
		var v int64
		err = l.s.Query("SELECT v FROM clks.kv WHERE w = ? AND seq = ?", w, seq).Scan(&v)
		if errors.Is(err, gocql.ErrNotFound) || (err == nil && v != seq*7) {
			l.mu.Lock()
			l.stale++
			l.mu.Unlock()
			err = nil
		}
		l.record(start, err)
	}
}

// window counts requests started in [from, to) and those that failed.
func (l *clusterLoad) window(from, to time.Time) (n, failed int, sample error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.outcomes {
		if o.at.Before(from) || !o.at.Before(to) {
			continue
		}
		n++
		if o.err != nil {
			failed++
			if sample == nil {
				sample = o.err
			}
		}
	}
	return n, failed, sample
}

func (l *clusterLoad) successes() int {
	n, failed, _ := l.window(time.Time{}, time.Now().Add(time.Hour))
	return n - failed
}

// TestRelayClusterNodeLoss (issue #46): 8 writers through dohyo and 8
// straight to the 3-node cluster (RF=3, QUORUM, gocql without a retry
// policy on both sides: what a driver hides is what its connection
// handling hides), side by side, while node 1 is killed (SIGKILL) and
// restarted, then node 2 is frozen (SIGSTOP) for 30 s and resumed.
// dohyo's clients see no more errors than the direct ones in each fault
// window, no request of dohyo's waits for gocql's own timeout, every
// acknowledged write reads back at ALL, and each faulted node serves
// requests through dohyo again (the relay's per-node request counter on
// /metrics grows and the node is up).
func TestRelayClusterNodeLoss(t *testing.T) {
	hosts, script := cassandraCluster(t)
	if len(hosts) < 3 {
		t.Fatalf("DOHYO_TEST_CASSANDRA_CLUSTER names %d nodes, want 3", len(hosts))
	}
	cluster := func(args ...string) {
		t.Helper()
		if out, err := runTool(t, 5*time.Minute, script, args...); err != nil {
			t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	killN, pauseN := clusterNode(t, "DOHYO_TEST_CLUSTER_KILL", 1), clusterNode(t, "DOHYO_TEST_CLUSTER_PAUSE", 2)
	if killN == pauseN {
		t.Fatalf("DOHYO_TEST_CLUSTER_KILL and DOHYO_TEST_CLUSTER_PAUSE name one node (%s): two faults need two nodes", killN)
	}
	t.Cleanup(func() { // leave every node running for what follows
		runTool(t, time.Minute, script, "resume", pauseN)
		runTool(t, 5*time.Minute, script, "start-node", killN)
		runTool(t, 5*time.Minute, script, "wait")
	})
	direct := func(c *gocql.ClusterConfig) {
		c.Timeout, c.ConnectTimeout = 30*time.Second, 10*time.Second
	}
	admin := gocqlSession(t, hosts[0], 4, nil, direct, func(c *gocql.ClusterConfig) { c.Hosts = hosts })
	mustExec(t, admin, "DROP KEYSPACE IF EXISTS clks")
	mustExec(t, admin, "CREATE KEYSPACE clks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	mustExec(t, admin, "CREATE TABLE clks.kv (w int, seq bigint, v bigint, PRIMARY KEY (w, seq))")

	const requestTimeout = 5 * time.Second
	p := startServe(t, "--backend", "cassandra://"+strings.Join(hosts, ",")+"?connect_timeout=2s&heartbeat=2s&suspect_after=1s",
		"--request-timeout", requestTimeout.String())
	// The same client settings on both sides: QUORUM, no retry policy
	// (gocql's default), a client timeout above dohyo's request timeout.
	client := func(c *gocql.ClusterConfig) {
		c.Consistency = gocql.Quorum
		c.Timeout = 8 * time.Second
		c.ConnectTimeout = 5 * time.Second
		c.RetryPolicy = nil
	}
	const writers = 8
	sides := []*clusterLoad{
		{name: "dohyo", s: gocqlSession(t, p.CQLAddr, 4, nil, client), first: 0},
		{name: "direct", s: gocqlSession(t, hosts[0], 4, nil, client, func(c *gocql.ClusterConfig) { c.Hosts = hosts }), first: 100},
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, l := range sides {
		l.acked = map[int][]int64{}
		for w := l.first; w < l.first+writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l.run(w, stop, 40*time.Millisecond, 20_000)
			}()
		}
	}
	stopLoad := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopLoad()

	// until waits (bounded) for cond, a fact the load or dohyo reports.
	until := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v", what, limit)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	metrics := "http://" + p.HTTPAddr + "/metrics"
	nodeMetric := func(name, node string, extra map[string]string) float64 {
		for _, s := range scrape(t, nil, metrics) {
			if s.name != name || s.labels["node"] != node {
				continue
			}
			match := true
			for k, v := range extra {
				match = match && s.labels[k] == v
			}
			if match {
				return s.value
			}
		}
		return -1
	}
	// servesAgain waits until node is up in dohyo and takes requests (back
	// is when it answered again: wait returned, or SIGCONT).
	servesAgain := func(node string, back time.Time) {
		t.Helper()
		until("node "+node+" up in dohyo", 2*time.Minute, func() bool {
			return nodeMetric("dohyo_relay_node_state", node, map[string]string{"state": "up"}) == 1
		})
		t.Logf("node %s up in dohyo %v after it answered again", node, time.Since(back).Round(time.Millisecond))
		before := nodeMetric("dohyo_relay_node_requests_total", node, nil)
		until("requests to node "+node+" through dohyo", time.Minute, func() bool {
			return nodeMetric("dohyo_relay_node_requests_total", node, nil) >= before+20
		})
	}
	var consumed atomic.Int64 // seconds the faults took, for the log
	fault := func(name string, do func()) {
		t.Helper()
		from := time.Now()
		do()
		to := time.Now()
		consumed.Add(int64(to.Sub(from).Seconds()))
		var counts []string
		var fails [2]int
		for i, l := range sides {
			n, failed, sample := l.window(from, to)
			fails[i] = failed
			counts = append(counts, fmt.Sprintf("%s %d of %d failed (first: %v)", l.name, failed, n, sample))
		}
		t.Logf("%s: %s", name, strings.Join(counts, "; "))
		if fails[0] > fails[1] {
			t.Errorf("%s: dohyo's clients saw %d errors, the direct ones %d", name, fails[0], fails[1])
		}
	}

	until("200 requests answered on each side", 2*time.Minute, func() bool {
		return sides[0].successes() >= 200 && sides[1].successes() >= 200
	})
	killed := hosts[nodeIndex(killN)]
	fault("node "+killN+" killed (SIGKILL) and restarted", func() {
		cluster("kill", killN)
		killedAt := time.Now()
		until("node "+killN+" down in dohyo", time.Minute, func() bool {
			return nodeMetric("dohyo_relay_node_state", killed, map[string]string{"state": "down"}) == 1
		})
		t.Logf("dohyo saw node %s down %v after the kill", killN, time.Since(killedAt).Round(time.Millisecond))
		n0 := sides[0].successes()
		until("100 more requests through dohyo with the node down", time.Minute, func() bool { return sides[0].successes() >= n0+100 })
		cluster("start-node", killN)
		cluster("wait")
		servesAgain(killed, time.Now())
	})
	frozen := hosts[nodeIndex(pauseN)]
	fault("node "+pauseN+" frozen (SIGSTOP) for 30 s, resumed", func() {
		cluster("pause", pauseN)
		pausedAt := time.Now()
		until("node "+pauseN+" not up in dohyo", time.Minute, func() bool {
			return nodeMetric("dohyo_relay_node_state", frozen, map[string]string{"state": "up"}) == 0
		})
		t.Logf("dohyo routed around node %s %v after SIGSTOP", pauseN, time.Since(pausedAt).Round(time.Millisecond))
		until("30 s frozen", 2*time.Minute, func() bool { return time.Since(pausedAt) >= 30*time.Second })
		cluster("resume", pauseN)
		servesAgain(frozen, time.Now())
	})
	stopLoad()

	var relay []string
	for _, smp := range scrape(t, nil, metrics) {
		switch smp.name {
		case "dohyo_relay_resends_total", "dohyo_relay_failures_total":
			relay = append(relay, fmt.Sprintf("%s %v", smp.name, smp.value))
		case "dohyo_relay_node_lost_total", "dohyo_relay_node_downs_total", "dohyo_relay_node_requests_total":
			relay = append(relay, fmt.Sprintf("%s{%s} %v", smp.name, smp.labels["node"], smp.value))
		}
	}
	t.Logf("dohyo's relay: %s", strings.Join(relay, ", "))

	for _, l := range sides {
		l.mu.Lock()
		if l.name == "dohyo" && l.clientTO > 0 {
			t.Errorf("%s: %d requests were left to gocql's own timeout (dohyo answers every request by its %v request timeout)", l.name, l.clientTO, requestTimeout)
		}
		if l.name == "dohyo" && l.stale > 0 {
			t.Errorf("%s: %d QUORUM reads missed the QUORUM write acknowledged just before", l.name, l.stale)
		}
		t.Logf("%s: %d requests, %d client timeouts, %d stale reads", l.name, len(l.outcomes), l.clientTO, l.stale)
		l.mu.Unlock()
	}
	// Every acknowledged write, read back at ALL (every replica answers,
	// the newest cell wins).
	all := gocqlSession(t, hosts[0], 4, nil, direct, func(c *gocql.ClusterConfig) {
		c.Hosts, c.Consistency = hosts, gocql.All
	})
	for _, l := range sides {
		lost := 0
		for w, seqs := range l.acked {
			have := map[int64]bool{}
			iter := all.Query("SELECT seq FROM clks.kv WHERE w = ?", w).PageSize(5000).Iter()
			var seq int64
			for iter.Scan(&seq) {
				have[seq] = true
			}
			if err := iter.Close(); err != nil {
				t.Fatalf("read back writer %d at ALL: %v", w, err)
			}
			for _, s := range seqs {
				if !have[s] {
					lost++
				}
			}
		}
		if lost > 0 {
			t.Errorf("%s: %d acknowledged writes not read back at ALL", l.name, lost)
		}
	}
	t.Logf("faults took %d s", consumed.Load())
}
