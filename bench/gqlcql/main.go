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
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gocql/gocql"
	"golang.org/x/sys/unix"

	"github.com/dohyo/dohyo/bench/httpfloor"
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
	floor := flag.Bool("floor", false, "with -mode blocks, also time the same `{ __typename }` request answered by the two servers of bench/httpfloor (net/http answering only, a minimal responder), each a process of its own on dohyo's CPUs (-server-pid)")
	serveFloor := flag.String("serve-floor", "", "serve bench/httpfloor's server of this kind on a loopback port and print its address (what -floor starts)")
	flag.Parse()
	if *serveFloor != "" {
		if err := runFloor(*serveFloor); err != nil {
			fmt.Fprintln(os.Stderr, "gqlcql:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*cqlAddr, *httpURL, *ks, *rounds, *n, *mode, *serverPID, *floor); err != nil {
		fmt.Fprintln(os.Stderr, "gqlcql:", err)
		os.Exit(1)
	}
}

func run(cqlAddr, httpURL, ks string, rounds, n int, mode string, serverPID int, floor bool) error {
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
	post := func(url string, body []byte, want string) error {
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
	readGraphQL := func() error { return post(url, body, want) }
	// { __typename }: the same HTTP request with no statement behind it.
	typename := []byte(`{"query":"{ __typename }"}`)
	const typenameAnswer = `{"data":{"__typename":"Query"}}`
	kinds := []kind{
		{name: "cql", read: readCQL, pid: serverPID},
		{name: "graphql", read: readGraphQL, pid: serverPID},
		{name: "typename", read: func() error { return post(url, typename, typenameAnswer) }, pid: serverPID},
	}
	if floor {
		for _, fk := range httpfloor.Kinds {
			addr, pid, stop, err := startFloor(fk, serverPID)
			if err != nil {
				return err
			}
			defer stop()
			furl := "http://" + addr + "/graphql/" + ks
			kinds = append(kinds, kind{name: "floor " + fk, read: func() error { return post(furl, typename, httpfloor.Answer) }, pid: pid})
		}
	}
	for i := 0; i < 500; i++ { // warm: prepare, schema, document cache, connections
		for _, k := range kinds {
			if err := k.read(); err != nil {
				return err
			}
		}
	}
	// block times n reads of one kind.
	block := func(k kind) (time.Duration, error) {
		start := time.Now()
		for i := 0; i < n; i++ {
			if err := k.read(); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
	us := make([][]float64, len(kinds))     // kind: µs per read, by round
	ratios := make([][]float64, len(kinds)) // kind: its µs / CQL's µs, by round
	cpu := make([][2][]float64, len(kinds)) // kind, client/server: µs of CPU per read
	switch mode {
	case "blocks":
	case "alternate":
		kinds = kinds[:2]
	case "cql":
		kinds = kinds[:1]
	case "graphql": // one kind only (for profiling the server)
		kinds = kinds[1:2]
	default:
		return fmt.Errorf("-mode %q: blocks, alternate, graphql or cql", mode)
	}
	vsCQL := kinds[0].name == "cql" // ratios are to the first kind (-mode graphql has no CQL reads)
	for r := 0; r < rounds; r++ {
		spent := make([]time.Duration, len(kinds))
		switch mode {
		case "blocks":
			for j := range kinds {
				i := (r + j) % len(kinds)
				c0, s0, err := cpuNow(kinds[i].pid)
				if err != nil {
					return err
				}
				if spent[i], err = block(kinds[i]); err != nil {
					return err
				}
				c1, s1, err := cpuNow(kinds[i].pid)
				if err != nil {
					return err
				}
				cpu[i][0] = append(cpu[i][0], float64((c1-c0).Microseconds())/float64(n))
				cpu[i][1] = append(cpu[i][1], float64((s1-s0).Microseconds())/float64(n))
			}
		case "alternate":
			for i := 0; i < n; i++ {
				for j := 0; j < 2; j++ {
					k := (r + j) % 2
					start := time.Now()
					if err := kinds[k].read(); err != nil {
						return err
					}
					spent[k] += time.Since(start)
				}
			}
		default:
			var err error
			if spent[0], err = block(kinds[0]); err != nil {
				return err
			}
		}
		fmt.Printf("round %d:", r+1)
		for i, k := range kinds {
			v := float64(spent[i].Microseconds()) / float64(n)
			us[i] = append(us[i], v)
			ratio := spent[i].Seconds() / spent[0].Seconds()
			ratios[i] = append(ratios[i], ratio)
			fmt.Printf(" %s %.1f µs", k.name, v)
			if i > 0 && vsCQL {
				fmt.Printf(" (%.2f× cql)", ratio)
			}
			fmt.Print(";")
		}
		fmt.Println()
	}
	fmt.Printf("medians of %d rounds (%s, n=%d):\n", rounds, mode, n)
	for i, k := range kinds {
		fmt.Printf("  %-16s %7.1f µs", k.name, stats.Median(us[i]))
		if vsCQL {
			fmt.Printf("  %5.2f× cql", stats.Median(ratios[i]))
		}
		if len(cpu[i][0]) > 0 {
			fmt.Printf("  CPU µs per read: client %.1f, server %.1f", stats.Median(cpu[i][0]), stats.Median(cpu[i][1]))
		}
		fmt.Println()
	}
	return nil
}

// kind is one kind of read: how to do one, and the process answering it
// (0: not measured).
type kind struct {
	name string
	read func() error
	pid  int
}

// runFloor serves bench/httpfloor's server of kind on a loopback port
// and prints its address.
func runFloor(kind string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("-serve-floor: %w", err)
	}
	fmt.Println(ln.Addr())
	return httpfloor.Serve(kind, ln)
}

// startFloor starts this command as bench/httpfloor's server of kind, on
// the CPUs of process pin (when not 0), and returns its address, its
// process id and how to stop it.
func startFloor(kind string, pin int) (addr string, pid int, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, fmt.Errorf("-floor: %w", err)
	}
	cmd := exec.Command(self, "-serve-floor", kind)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, fmt.Errorf("-floor: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, fmt.Errorf("-floor: %w", err)
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", 0, nil, fmt.Errorf("-floor %s: no address: %w", kind, err)
	}
	if pin != 0 {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(pin, &set); err != nil {
			stop()
			return "", 0, nil, fmt.Errorf("-floor: CPUs of %d: %w", pin, err)
		}
		if err := unix.SchedSetaffinity(cmd.Process.Pid, &set); err != nil {
			stop()
			return "", 0, nil, fmt.Errorf("-floor: pin %s: %w", kind, err)
		}
	}
	return strings.TrimSpace(line), cmd.Process.Pid, stop, nil
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
