package main

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// tierSession connects gocql to the given instances of a tier. With one
// address the driver uses that instance only; with several it discovers
// the rest through system.peers and routes token-aware.
func tierSession(t testing.TB, addrs ...string) *gocql.Session {
	t.Helper()
	host, port, _ := net.SplitHostPort(addrs[0])
	hosts := []string{host}
	for _, a := range addrs[1:] {
		h, _, _ := net.SplitHostPort(a)
		hosts = append(hosts, h)
	}
	c := gocql.NewCluster(hosts...)
	fmt.Sscan(port, &c.Port)
	c.ProtoVersion = 4
	// Timeouts bound a hang only: DDL from three instances at once on one
	// HBase (each table a region to create, commits that retry on
	// conflict) takes seconds each, more when the machine or the HBase
	// master is busy (a fresh-clone run saw 10 s exceeded).
	c.Timeout = 60 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.One
	// Schema agreement after DDL must complete (gocql fails the statement
	// when it is not reached in time, instead of going on).
	c.MaxWaitSchemaAgreement = 60 * time.Second
	if len(addrs) == 1 {
		c.DisableInitialHostLookup = true
		c.HostFilter = gocql.WhiteListHostFilter(host)
		// gocql answers a TOPOLOGY_CHANGE with a ring refresh that, without
		// the initial host lookup, drops the one host it has: a client
		// pinned to one instance does not follow the tier.
		c.Events.DisableTopologyEvents = true
		c.Events.DisableNodeStatusEvents = true
	} else {
		c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
		c.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 3}
		c.ReconnectInterval = time.Second
	}
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("gocql connect to %v: %v", addrs, err)
	}
	t.Cleanup(s.Close)
	return s
}

// singleSessions connects one client to each instance of tr, each
// pinned to its instance (tierSession with one address).
func (tr *tierHarness) singleSessions(t testing.TB) []*gocql.Session {
	out := make([]*gocql.Session, len(tr.addrs))
	for i, a := range tr.addrs {
		out[i] = tierSession(t, a)
	}
	return out
}

func tierKS(t *testing.T) string {
	return fmt.Sprintf("tier_catalog_%d", time.Now().UnixNano()%1e9)
}

const tierReplication = "{'class': 'SimpleStrategy', 'replication_factor': 1}"

// eventually polls cond until it holds or the deadline passes; within is
// a bound against hanging, generous for a loaded machine, not a latency
// the test promises.
func eventually(t *testing.T, within time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// schemaVersions reads system.local's schema_version and every
// system.peers row's through one instance.
func schemaVersions(s *gocql.Session) (local string, peers map[string]string, err error) {
	var v gocql.UUID
	if err := s.Query("SELECT schema_version FROM system.local WHERE key = 'local'").Scan(&v); err != nil {
		return "", nil, err
	}
	peers = map[string]string{}
	it := s.Query("SELECT peer, schema_version FROM system.peers").Iter()
	var ip net.IP
	var pv gocql.UUID
	for it.Scan(&ip, &pv) {
		peers[ip.String()] = pv.String()
	}
	return v.String(), peers, it.Close()
}

// Schema created through one instance is usable through the others at
// once (unknown names reload the catalog) and every instance reports the
// same schema version within the poll bound, so gocql's schema agreement
// after DDL completes.
func TestTierSchemaVisibleEverywhere(t *testing.T) {
	tr := startTier(t, 3)
	ks := tierKS(t)
	singles := tr.singleSessions(t)
	// Membership: each instance lists the two others as peers.
	for i, s := range singles {
		eventually(t, 60*time.Second, fmt.Sprintf("instance %d lists its peers", i), func() error {
			_, peers, err := schemaVersions(s)
			if err != nil {
				return err
			}
			if len(peers) != 2 {
				return fmt.Errorf("peers %v, want the 2 others", peers)
			}
			return nil
		})
		// system.peers_v2 (read first by drivers on protocol v5) lists the
		// same two, each on its CQL port.
		it := s.Query("SELECT peer, native_address, native_port FROM system.peers_v2").Iter()
		var peer, native net.IP
		var port int
		v2 := map[string]int{}
		for it.Scan(&peer, &native, &port) {
			if !peer.Equal(native) {
				t.Errorf("instance %d: peers_v2 %v has native_address %v", i, peer, native)
			}
			v2[net.JoinHostPort(peer.String(), fmt.Sprint(port))] = 1
		}
		if err := it.Close(); err != nil {
			t.Fatalf("instance %d: system.peers_v2: %v", i, err)
		}
		for j, a := range tr.addrs {
			if _, listed := v2[a]; listed == (j == i) {
				t.Errorf("instance %d: system.peers_v2 lists %v, want the others of %v", i, v2, tr.addrs)
				break
			}
		}
	}
	// The all-instances session waits for schema agreement after each
	// DDL: with MaxWaitSchemaAgreement it fails if agreement never comes.
	all := tierSession(t, tr.addrs...)
	if err := all.Query("CREATE KEYSPACE " + ks + " WITH replication = " + tierReplication).Exec(); err != nil {
		t.Fatalf("CREATE KEYSPACE (with schema agreement): %v", err)
	}
	if err := singles[0].Query("CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v text)").Exec(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// Usable at once through the two others: no restart, no wait.
	for i := 1; i < 3; i++ {
		if err := singles[i].Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", i, fmt.Sprint("via ", i)).Exec(); err != nil {
			t.Fatalf("INSERT through instance %d right after CREATE TABLE on instance 0: %v", i, err)
		}
	}
	var v string
	if err := singles[0].Query("SELECT v FROM " + ks + ".t WHERE k = 2").Scan(&v); err != nil || v != "via 2" {
		t.Fatalf("row written through instance 2, read through 0: %q, %v", v, err)
	}
	// Every instance reports one schema version for itself and its peers
	// once it has polled the catalog (every 1 s); the 30 s bound only
	// stops a tier that never agrees from hanging the test.
	eventually(t, 30*time.Second, "schema agreement across the tier", func() error {
		seen := map[string]bool{}
		for _, s := range singles {
			local, peers, err := schemaVersions(s)
			if err != nil {
				return err
			}
			seen[local] = true
			for _, pv := range peers {
				seen[pv] = true
			}
		}
		if len(seen) != 1 {
			return fmt.Errorf("schema versions %v", seen)
		}
		return nil
	})
	t.Logf("schema agreement %v after CREATE TABLE", time.Since(start))
	if err := all.Query("ALTER TABLE " + ks + ".t ADD w int").Exec(); err != nil {
		t.Fatalf("ALTER TABLE (with schema agreement): %v", err)
	}
	if err := singles[2].Query("INSERT INTO " + ks + ".t (k, w) VALUES (3, 3)").Exec(); err != nil {
		t.Fatalf("column added through another instance, used through instance 2: %v", err)
	}
	if err := all.Query("DROP KEYSPACE " + ks).Exec(); err != nil {
		t.Fatal(err)
	}
}

// The Python driver against the tier: it discovers the peers, waits for
// schema agreement after DDL (it must be reached) and uses each instance.
func TestTierPythonSchemaAgreement(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	tr := startTier(t, 3)
	host, port, _ := net.SplitHostPort(tr.addrs[0])
	out, err := runTool(t, 3*time.Minute, py, "testdata/tier_schema_check.py", host, port, tierKS(t), "3")
	if err != nil || !strings.Contains(out, "OK") {
		t.Fatalf("python tier check failed: %v\n%s", err, out)
	}
}

// DDL through all three instances at once loses nothing, and conflicting
// DDL has one winner and clean AlreadyExists errors.
func TestTierConcurrentDDL(t *testing.T) {
	tr := startTier(t, 3)
	base := tierKS(t)
	singles := tr.singleSessions(t)
	if err := singles[0].Query("CREATE KEYSPACE " + base + " WITH replication = " + tierReplication).Exec(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var errs sync.Map
	for i, s := range singles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := fmt.Sprintf("%s_%d", base, i)
			stmts := []string{"CREATE KEYSPACE " + own + " WITH replication = " + tierReplication}
			for j := range 6 {
				stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s.t%d_%d (k int PRIMARY KEY, v int)", base, i, j))
				if j < 2 {
					stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s.o%d (k int PRIMARY KEY)", own, j))
				}
			}
			for _, q := range stmts {
				if err := s.Query(q).Exec(); err != nil {
					errs.Store(q, err)
				}
			}
		}()
	}
	wg.Wait()
	errs.Range(func(q, err any) bool {
		t.Errorf("%s: %v", q, err)
		return true
	})
	// Every instance sees all of it: 18 tables in the shared keyspace, the
	// three own keyspaces with 2 tables each.
	for i, s := range singles {
		eventually(t, 30*time.Second, fmt.Sprintf("instance %d sees every table", i), func() error {
			n, err := countTables(s, base)
			if err != nil || n != 18 {
				return fmt.Errorf("%d tables in %s (%v)", n, base, err)
			}
			for j := range 3 {
				own := fmt.Sprintf("%s_%d", base, j)
				if n, err := countTables(s, own); err != nil || n != 2 {
					return fmt.Errorf("%d tables in %s (%v)", n, own, err)
				}
			}
			return nil
		})
	}

	// Conflicting DDL: the same table with different columns, and the same
	// keyspace without IF NOT EXISTS, through all three at once.
	var wins atomic.Int32
	var others []string
	var mu sync.Mutex
	for _, q := range []string{
		"CREATE TABLE " + base + ".same (k int PRIMARY KEY, c%d int)",
		"CREATE KEYSPACE " + base + "_same WITH replication = " + tierReplication + " AND durable_writes = %t",
	} {
		wins.Store(0)
		others = others[:0]
		for i, s := range singles {
			wg.Add(1)
			go func() {
				defer wg.Done()
				arg := any(i)
				if strings.Contains(q, "KEYSPACE") {
					arg = true
				}
				err := s.Query(fmt.Sprintf(q, arg)).Exec()
				mu.Lock()
				defer mu.Unlock()
				var re gocql.RequestError
				switch {
				case err == nil:
					wins.Add(1)
				case errors.As(err, &re) && re.Code() == gocql.ErrCodeAlreadyExists:
				default:
					others = append(others, err.Error())
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 || len(others) > 0 {
			t.Errorf("%s through 3 instances: %d winners (want 1), errors other than AlreadyExists: %v", q, wins.Load(), others)
		}
	}
	for i := range 3 {
		_ = singles[0].Query(fmt.Sprintf("DROP KEYSPACE %s_%d", base, i)).Exec()
	}
	_ = singles[0].Query("DROP KEYSPACE " + base + "_same").Exec()
	_ = singles[0].Query("DROP KEYSPACE " + base).Exec()
}

func countTables(s *gocql.Session, ks string) (int, error) {
	it := s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", ks).Iter()
	var name string
	n := 0
	for it.Scan(&name) {
		n++
	}
	return n, it.Close()
}

// kill -9 of one instance under load: clients of the others see no
// errors; a token-aware client of all three keeps working through the
// others; the survivors drop the dead instance from system.peers, and
// list it again once it is back.
func TestTierKillUnderLoad(t *testing.T) {
	tr := startTier(t, 3)
	ks := tierKS(t)
	setup := tierSession(t, tr.addrs[1])
	if err := setup.Query("CREATE KEYSPACE " + ks + " WITH replication = " + tierReplication).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := setup.Query("CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v int)").Exec(); err != nil {
		t.Fatal(err)
	}
	for i, a := range tr.addrs {
		s := tierSession(t, a)
		eventually(t, 60*time.Second, fmt.Sprintf("instance %d lists 2 peers", i), func() error {
			_, peers, err := schemaVersions(s)
			if err == nil && len(peers) != 2 {
				err = fmt.Errorf("peers %v", peers)
			}
			return err
		})
		s.Close() // the single-host client of instance 0 would only log its death
	}
	b, c := tierSession(t, tr.addrs[1]), tierSession(t, tr.addrs[2])
	all := tierSession(t, tr.addrs...)

	const runFor = 12 * time.Second
	killAt := 3 * time.Second
	start := time.Now()
	type result struct {
		ok         int
		errs       []string
		lastErr    time.Duration // since start
		okSinceErr int           // successes after the last error
	}
	load := func(s *gocql.Session, base int, res *result, wg *sync.WaitGroup) {
		defer wg.Done()
		for n := 0; time.Since(start) < runFor && n < 100000; n++ {
			k := base + n%500
			err := s.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", k, n).Idempotent(true).Exec()
			if err == nil {
				var v int
				err = s.Query("SELECT v FROM "+ks+".kv WHERE k = ?", k).Idempotent(true).Scan(&v)
			}
			if err != nil {
				res.errs = append(res.errs, fmt.Sprintf("%v: %v", time.Since(start).Round(time.Millisecond), err))
				res.lastErr = time.Since(start)
				res.okSinceErr = 0
				continue
			}
			res.ok++
			res.okSinceErr++
		}
	}
	var rb, rc, ra result
	var wg sync.WaitGroup
	wg.Add(3)
	go load(b, 0, &rb, &wg)
	go load(c, 1000, &rc, &wg)
	go load(all, 2000, &ra, &wg)
	time.Sleep(killAt) // the load runs meanwhile; this is the kill's moment, not a synchronisation
	tr.kill(0)
	killed := time.Since(start)
	wg.Wait()

	for name, r := range map[string]*result{"instance 1": &rb, "instance 2": &rc} {
		if len(r.errs) > 0 || r.ok == 0 {
			t.Errorf("client of %s: %d ok, errors %v", name, r.ok, r.errs)
		}
	}
	t.Logf("token-aware client of all three: %d ok, %d errors (kill at %v): %v", ra.ok, len(ra.errs), killed, ra.errs)
	// Recovered within the run — its last requests succeeded — as a fact
	// of the run, not a time: how long after the kill it failed is logged.
	if ra.ok == 0 || ra.okSinceErr == 0 {
		t.Errorf("client of all three: %d ok, still failing at the end of the run (last error %v after the kill)", ra.ok, ra.lastErr-killed)
	} else if len(ra.errs) > 0 {
		t.Logf("client of all three: last error %v after the kill, %d successes after it", ra.lastErr-killed, ra.okSinceErr)
	}
	// The client keeps working through the others after the run, too.
	for k := range 20 {
		if err := all.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, 1)", 5000+k).Idempotent(true).Exec(); err != nil {
			t.Fatalf("client of all three after the kill: %v", err)
		}
	}

	// Membership: the survivors drop the dead instance, then list it again
	// once it is restarted.
	dead, _, _ := net.SplitHostPort(tr.addrs[0])
	peersOf := func(s *gocql.Session) []string {
		_, peers, _ := schemaVersions(s)
		var out []string
		for ip := range peers {
			out = append(out, ip)
		}
		slices.Sort(out)
		return out
	}
	eventually(t, 60*time.Second, "survivors drop the killed instance", func() error {
		if p := peersOf(b); slices.Contains(p, dead) {
			return fmt.Errorf("instance 1 still lists %s: %v", dead, p)
		}
		return nil
	})
	nodeEvent := func(i int, change string) func() error {
		return func() error {
			if want := "change=" + change + " member=" + tr.addrs[0]; !strings.Contains(tr.procs[i].Output(), want) {
				return fmt.Errorf("instance %d did not log %q", i, want)
			}
			return nil
		}
	}
	eventually(t, 60*time.Second, "a survivor sends STATUS_CHANGE DOWN", nodeEvent(1, "DOWN"))
	tr.start(0)
	eventually(t, 60*time.Second, "survivors list the restarted instance", func() error {
		if p := peersOf(c); !slices.Contains(p, dead) {
			return fmt.Errorf("instance 2 lists %v, not %s", p, dead)
		}
		return nil
	})
	eventually(t, 60*time.Second, "a survivor sends STATUS_CHANGE UP", nodeEvent(2, "UP"))
	s := tierSession(t, tr.addrs[0])
	var v int
	if err := s.Query("SELECT v FROM " + ks + ".kv WHERE k = 5000").Scan(&v); err != nil || v != 1 {
		t.Fatalf("restarted instance reads a row written meanwhile: %d, %v", v, err)
	}
	_ = setup.Query("DROP KEYSPACE " + ks).Exec()
}

// The embedded store is single-process: a second dohyo serve on the same
// data directory fails and says why.
func TestServeDataDirHeld(t *testing.T) {
	dir := t.TempDir()
	backend := "embedded://" + dir
	startServe(t, "--backend", backend)
	out, err := runTool(t, time.Minute, dohyoBinary(t), "serve", "--cql-addr", "127.0.0.1:0",
		"--http-addr", "127.0.0.1:0", "--backend", backend)
	if err == nil {
		t.Fatalf("second dohyo serve on %s started:\n%s", dir, out)
	}
	for _, want := range []string{dir, "in use by another dohyo process", "--backend embedded:///"} {
		if !strings.Contains(out, want) {
			t.Errorf("second dohyo serve's message lacks %q:\n%s", want, out)
		}
	}
}
