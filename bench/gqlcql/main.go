// Command gqlcql compares, from a client process of its own, a point read
// of one row as CQL (gocql, prepared, one connection) and as GraphQL
// (net/http with keep-alive, POST /graphql/{keyspace}) against a running
// dohyo: the setting of an application talking to a dohyo instance, where
// graphql.BenchmarkPointReadEndToEnd runs clients and server in one
// process (one Go scheduler and one heap for both).
//
// Each round times -n reads of each kind in turn (the first kind rotates
// round by round): the CQL read, the GraphQL read, and `{ __typename }`
// (the same HTTP request with no statement behind it); it reports the
// means, graphql/cql and typename/cql, medians over the rounds and, with
// -server-pid, the CPU per read of this client and of dohyo for each kind.
// -mode alternate times single CQL and GraphQL reads in strict
// alternation instead (CQL, GraphQL, CQL, ...).
//
//	gqlcql -cql 127.0.0.1:9042 -http http://127.0.0.1:8080 -rounds 9 -n 2000
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/internal/proccpu"
	"github.com/dohyo/dohyo/internal/stats"
)

func main() {
	cqlAddr := flag.String("cql", "127.0.0.1:9042", "dohyo's CQL address")
	httpURL := flag.String("http", "http://127.0.0.1:8080", "dohyo's HTTP base URL")
	ks := flag.String("keyspace", "gqlcql", "keyspace (created if missing)")
	rounds := flag.Int("rounds", 9, "rounds")
	n := flag.Int("n", 2000, "reads of each kind per round")
	mode := flag.String("mode", "blocks", "blocks (n of one kind, then n of the other), alternate, or graphql or cql (that kind only, to profile the server)")
	serverPID := flag.Int("server-pid", 0, "dohyo's process id: with -mode blocks, report its CPU per read of each kind (from /proc), next to this client's")
	flag.Parse()
	if err := run(*cqlAddr, *httpURL, *ks, *rounds, *n, *mode, *serverPID); err != nil {
		fmt.Fprintln(os.Stderr, "gqlcql:", err)
		os.Exit(1)
	}
}

func run(cqlAddr, httpURL, ks string, rounds, n int, mode string, serverPID int) error {
	host, port, err := net.SplitHostPort(cqlAddr)
	if err != nil {
		return fmt.Errorf("-cql: %w", err)
	}
	cluster := gocql.NewCluster(host)
	cluster.Port, _ = strconv.Atoi(port)
	cluster.ProtoVersion = 4
	cluster.NumConns = 1
	cluster.DisableInitialHostLookup = true
	cluster.Timeout = 10 * time.Second
	cluster.WriteCoalesceWaitTime = 0 // gocql waits 200 µs by default to batch writes
	setup, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS " + ks + ".kv (k int PRIMARY KEY, v text)",
		"INSERT INTO " + ks + ".kv (k, v) VALUES (42, 'forty-two')",
	} {
		if err := setup.Query(q).Exec(); err != nil {
			setup.Close()
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	setup.Close()
	cluster.Keyspace = ks
	cluster.Consistency = gocql.LocalQuorum
	sess, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer sess.Close()

	var k int
	var v string
	readCQL := func() error {
		if err := sess.Query("SELECT k, v FROM kv WHERE k = ?", 42).Scan(&k, &v); err != nil || v != "forty-two" {
			return fmt.Errorf("cql read: %v (%q)", err, v)
		}
		return nil
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	body := []byte(`{"query":"query($k: Int) { kv(value: {k: $k}) { values { k v } } }","variables":{"k":42}}`)
	want := `{"data":{"kv":{"values":[{"k":42,"v":"forty-two"}]}}}`
	url := httpURL + "/graphql/" + ks
	post := func(body []byte, want string) error {
		res, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("graphql: %w", err)
		}
		out, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 || string(out) != want {
			return fmt.Errorf("graphql: %d %s %v", res.StatusCode, out, err)
		}
		return nil
	}
	readGraphQL := func() error { return post(body, want) }
	// { __typename }: the same HTTP request with no statement behind it.
	typename := []byte(`{"query":"{ __typename }"}`)
	readTypename := func() error { return post(typename, `{"data":{"__typename":"Query"}}`) }
	reads := [3]func() error{readCQL, readGraphQL, readTypename}
	for i := 0; i < 500; i++ { // warm: prepare, schema, document cache, connections
		for _, r := range reads {
			if err := r(); err != nil {
				return err
			}
		}
	}
	// block times n reads of one kind.
	block := func(kind int) (time.Duration, error) {
		start := time.Now()
		for i := 0; i < n; i++ {
			if err := reads[kind](); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
	var cqlUS, gqlUS, ratios, tnRatios []float64
	var cpu [3][2][]float64 // kind, client/server: µs of CPU per read
	for r := 0; r < rounds; r++ {
		var spent [3]time.Duration
		switch mode {
		case "blocks":
			for j := 0; j < 3; j++ {
				kind := (r + j) % 3
				c0, s0, err := cpuNow(serverPID)
				if err != nil {
					return err
				}
				if spent[kind], err = block(kind); err != nil {
					return err
				}
				c1, s1, err := cpuNow(serverPID)
				if err != nil {
					return err
				}
				cpu[kind][0] = append(cpu[kind][0], float64((c1-c0).Microseconds())/float64(n))
				cpu[kind][1] = append(cpu[kind][1], float64((s1-s0).Microseconds())/float64(n))
			}
		case "alternate":
			for i := 0; i < n; i++ {
				for j := 0; j < 2; j++ {
					kind := (r + j) % 2
					start := time.Now()
					if err := reads[kind](); err != nil {
						return err
					}
					spent[kind] += time.Since(start)
				}
			}
		case "graphql", "cql": // one kind only (for profiling the server)
			kind := 0
			if mode == "graphql" {
				kind = 1
			}
			d, err := block(kind)
			if err != nil {
				return err
			}
			spent[kind], spent[1-kind] = d, d
		default:
			return fmt.Errorf("-mode %q: blocks, alternate, graphql or cql", mode)
		}
		c := float64(spent[0].Microseconds()) / float64(n)
		g := float64(spent[1].Microseconds()) / float64(n)
		cqlUS, gqlUS, ratios = append(cqlUS, c), append(gqlUS, g), append(ratios, g/c)
		fmt.Printf("round %d: cql %.1f µs, graphql %.1f µs, graphql/cql %.2f", r+1, c, g, g/c)
		if spent[2] > 0 {
			tn := float64(spent[2].Microseconds()) / float64(n)
			tnRatios = append(tnRatios, tn/c)
			fmt.Printf(", typename %.1f µs, typename/cql %.2f", tn, tn/c)
		}
		fmt.Println()
	}
	fmt.Printf("median of %d rounds (%s, n=%d): cql %.1f µs, graphql %.1f µs, graphql/cql %.2f\n",
		rounds, mode, n, stats.Median(cqlUS), stats.Median(gqlUS), stats.Median(ratios))
	if mode == "blocks" {
		fmt.Printf("typename/cql %.2f; CPU µs per read (medians): cql client %.1f, server %.1f; graphql client %.1f, server %.1f; typename client %.1f, server %.1f\n",
			stats.Median(tnRatios), stats.Median(cpu[0][0]), stats.Median(cpu[0][1]), stats.Median(cpu[1][0]), stats.Median(cpu[1][1]),
			stats.Median(cpu[2][0]), stats.Median(cpu[2][1]))
	}
	return nil
}

// selfCPU is this process's CPU time so far (user and system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuNow is this client's CPU time so far and, when serverPID is not 0,
// that process's (from /proc).
func cpuNow(serverPID int) (client, server time.Duration, err error) {
	if serverPID != 0 {
		if server, err = proccpu.Of(serverPID); err != nil {
			return 0, 0, fmt.Errorf("-server-pid: %w", err)
		}
	}
	return selfCPU(), server, nil
}
