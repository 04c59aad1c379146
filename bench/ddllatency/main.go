// Command ddllatency times schema statements through gocql against each
// endpoint given, alternating endpoints round by round: CREATE KEYSPACE,
// CREATE TABLE (mean of -tables) and DROP KEYSPACE of the keyspace with
// its tables, each including gocql's schema-agreement wait. It compares a
// Cassandra node with dohyo relaying to it (docs/BENCHMARKS.md, "Relay to
// Cassandra").
//
//	go run ./bench/ddllatency -rounds 6 127.0.0.1:9042 127.0.0.1:9043
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/internal/stats"
)

func main() {
	rounds := flag.Int("rounds", 6, "rounds (each runs every endpoint once)")
	tables := flag.Int("tables", 5, "tables per keyspace")
	flag.Parse()
	addrs := flag.Args()
	if len(addrs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: ddllatency [-rounds N] [-tables N] HOST:PORT...")
		os.Exit(2)
	}
	times := map[string][3][]float64{}
	for r := range *rounds {
		for i := range addrs {
			addr := addrs[(i+r)%len(addrs)]
			t, err := once(addr, fmt.Sprintf("ddllat_%d_%d", r, time.Now().UnixNano()%1e6), *tables)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", addr, err)
				os.Exit(1)
			}
			m := times[addr]
			for k := range t {
				m[k] = append(m[k], t[k])
			}
			times[addr] = m
			fmt.Printf("round %d %-21s create keyspace %5.2fs  create table %5.2fs  drop keyspace %5.2fs\n", r, addr, t[0], t[1], t[2])
		}
	}
	for _, addr := range addrs {
		m := times[addr]
		fmt.Printf("median  %-21s create keyspace %5.2fs  create table %5.2fs  drop keyspace %5.2fs\n", addr, stats.Median(m[0]), stats.Median(m[1]), stats.Median(m[2]))
	}
}

// once creates keyspace ks with n tables and drops it, returning the
// seconds each step took (CREATE TABLE: the mean).
func once(addr, ks string, n int) ([3]float64, error) {
	var out [3]float64
	c := gocql.NewCluster(addr)
	c.Timeout = 30 * time.Second
	c.ProtoVersion = 4
	s, err := c.CreateSession()
	if err != nil {
		return out, err
	}
	defer s.Close()
	t0 := time.Now()
	if err := s.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		return out, err
	}
	out[0] = time.Since(t0).Seconds()
	t0 = time.Now()
	for i := range n {
		if err := s.Query(fmt.Sprintf("CREATE TABLE %s.t%d (k int PRIMARY KEY, v text)", ks, i)).Exec(); err != nil {
			return out, err
		}
	}
	out[1] = time.Since(t0).Seconds() / float64(max(n, 1))
	t0 = time.Now()
	if err := s.Query("DROP KEYSPACE " + ks).Exec(); err != nil {
		return out, err
	}
	out[2] = time.Since(t0).Seconds()
	return out, nil
}
