package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// The CQL attacks of issue 15 against a real `dohyo serve` (plain build,
// authentication on, every limit at its default): memory stays under
// attackRSSBound and real clients keep being served.

// attackRSSBound is the resident memory dohyo serve must stay under
// during every attack (docs/SECURITY.md).
const attackRSSBound = 512 << 20

// rssSampler records the peak VmRSS of a process.
type rssSampler struct {
	pid  int
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func sampleRSS(t *testing.T, pid int) *rssSampler {
	s := &rssSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if n, err := vmRSS(pid); err == nil && n > s.peak.Load() {
				s.peak.Store(n)
			}
			select {
			case <-tick.C:
			case <-s.stop:
				return
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-s.stop:
		default:
			close(s.stop)
		}
		<-s.done
	})
	return s
}

// check fails the test when the peak passed the bound, naming the attack.
func (s *rssSampler) check(t *testing.T, attack string) {
	t.Helper()
	peak := s.peak.Load()
	t.Logf("%s: peak VmRSS %d MiB", attack, peak>>20)
	if peak > attackRSSBound {
		t.Errorf("%s: peak VmRSS %d MiB, want < %d MiB", attack, peak>>20, attackRSSBound>>20)
	}
}

// ---- raw protocol v4 ----

func rawCQLFrame(flags byte, stream int16, op byte, body []byte) []byte {
	f := []byte{4, flags, byte(uint16(stream) >> 8), byte(stream), op}
	f = binary.BigEndian.AppendUint32(f, uint32(len(body)))
	return append(f, body...)
}

func cqlString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

func startupFrame(compression string) []byte {
	n := uint16(1)
	if compression != "" {
		n = 2
	}
	b := binary.BigEndian.AppendUint16(nil, n)
	b = cqlString(cqlString(b, "CQL_VERSION"), "3.0.0")
	if compression != "" {
		b = cqlString(cqlString(b, "COMPRESSION"), compression)
	}
	return rawCQLFrame(0, 1, 0x01, b)
}

func authResponseFrame(stream int16, user, pass string) []byte {
	tok := "\x00" + user + "\x00" + pass
	return rawCQLFrame(0, stream, 0x0F, append(binary.BigEndian.AppendUint32(nil, uint32(len(tok))), tok...))
}

func queryFrame(stream int16, q string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(q)))
	b = append(b, q...)
	b = append(binary.BigEndian.AppendUint16(b, 1), 0) // ONE, no flags
	return rawCQLFrame(0, stream, 0x07, b)
}

// readCQLFrame returns the opcode and body of the next frame.
func readCQLFrame(r io.Reader) (byte, []byte, error) {
	h := make([]byte, 9)
	if _, err := io.ReadFull(r, h); err != nil {
		return 0, nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(h[5:]))
	_, err := io.ReadFull(r, body)
	return h[4], body, err
}

func dialCQL(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(60 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return nc
}

// expectCQLError reads frames until an ERROR (or the end) and reports
// whether an ERROR came.
func expectCQLError(nc net.Conn) bool {
	for {
		op, _, err := readCQLFrame(nc)
		if err != nil {
			return false
		}
		if op == 0x00 {
			return true
		}
	}
}

// TestCQLAttacksBoundedMemory runs each attack in turn against one dohyo
// serve and checks its memory and that real clients are still served.
func TestCQLAttacksBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("attack suite: not in -short")
	}
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	writeFile(t, users, []byte("alice:"+bcryptHash(t, "alicepw")+"\n"))
	// One user from the file, one from the environment: no hash on the
	// command line.
	p := startServeBin(t, plainBinary(t), []string{"DOHYO_AUTH_USER=bob:" + bcryptHash(t, "bobpw")},
		"--backend", "embedded://memory", "--auth-users-file", users, "--log-level", "error")
	pid := p.cmd.Process.Pid
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil {
		t.Fatal(err)
	} else if bytes.Contains(cmdline, []byte("$2")) {
		t.Errorf("/proc/%d/cmdline holds a bcrypt hash: %q", pid, cmdline)
	}

	c := cluster(p.CQLAddr)
	c.Authenticator = gocql.PasswordAuthenticator{Username: "bob", Password: "bobpw"}
	s := session(t, c)
	mustExec(t, s, "CREATE KEYSPACE atk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE atk.big (k int PRIMARY KEY, v blob)")
	mustExec(t, s, "INSERT INTO atk.big (k, v) VALUES (?, ?)", 1, bytes.Repeat([]byte{7}, 1<<20))
	served := func(what string) {
		t.Helper()
		var n int
		if err := s.Query("SELECT k FROM atk.big WHERE k = 1").Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: the real client was not served: %v", what, err)
		}
	}

	t.Run("pre-auth 6x256MiB OPTIONS", func(t *testing.T) { attackPreAuthBodies(t, p, pid) })
	served("after the pre-auth bodies")
	t.Run("LZ4 bombs in AUTHENTICATE", func(t *testing.T) { attackLZ4Bombs(t, p, pid) })
	served("after the LZ4 bombs")
	t.Run("2048 silent connections and slowloris", func(t *testing.T) { attackSilent(t, p, pid, s) })
	t.Run("8 clients that never read", func(t *testing.T) { attackNonReading(t, p, pid) })
	served("after the non-reading clients")
	t.Run("password guessing", func(t *testing.T) { attackPasswords(t, p) })
}

func attackPreAuthBodies(t *testing.T, p *serveProc, pid int) {
	rss := sampleRSS(t, pid)
	var wg sync.WaitGroup
	var answered, sentMiB atomic.Int64
	for i := 0; i < 6; i++ {
		nc := dialCQL(t, p.CQLAddr)
		wg.Add(2)
		go func() {
			defer wg.Done()
			if expectCQLError(nc) {
				answered.Add(1)
			}
		}()
		go func() {
			defer wg.Done()
			h := rawCQLFrame(0, 1, 0x05, nil)
			binary.BigEndian.PutUint32(h[5:], 256<<20)
			chunk := make([]byte, 1<<20)
			if _, err := nc.Write(h); err != nil {
				return
			}
			for n := 0; n < 256; n++ {
				if _, err := nc.Write(chunk); err != nil {
					return
				}
				sentMiB.Add(1)
			}
		}()
	}
	wg.Wait()
	if answered.Load() != 6 {
		t.Errorf("%d of 6 oversized OPTIONS answered with an error", answered.Load())
	}
	if sentMiB.Load() >= 6*256 {
		t.Errorf("dohyo read all %d MiB of the oversized bodies", sentMiB.Load())
	}
	rss.check(t, "6x256MiB OPTIONS before STARTUP")
}

func attackLZ4Bombs(t *testing.T, p *serveProc, pid int) {
	rss := sampleRSS(t, pid)
	var wg sync.WaitGroup
	var answered atomic.Int64
	for i := 0; i < 32; i++ {
		nc := dialCQL(t, p.CQLAddr)
		// Half over the pre-auth frame limit (1 MiB bodies), half under it
		// but declaring 256 MiB decompressed.
		size := 1 << 20
		if i%2 == 1 {
			size = 200 << 10
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc.Write(startupFrame("lz4"))
			if op, _, err := readCQLFrame(nc); err != nil || op != 0x03 {
				t.Errorf("STARTUP answered %#x, %v; want AUTHENTICATE", op, err)
				return
			}
			body := binary.BigEndian.AppendUint32(nil, 256<<20)
			body = append(body, bytes.Repeat([]byte{0xff}, size)...)
			go nc.Write(rawCQLFrame(0x01, 2, 0x0F, body))
			if expectCQLError(nc) {
				answered.Add(1)
			}
		}()
	}
	wg.Wait()
	if answered.Load() != 32 {
		t.Errorf("%d of 32 LZ4 bombs answered with an error", answered.Load())
	}
	rss.check(t, "32 LZ4 bodies declaring 256 MiB")
}

func attackSilent(t *testing.T, p *serveProc, pid int, s *gocql.Session) {
	rss := sampleRSS(t, pid)
	var conns []net.Conn
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	for i := 0; i < 2048; i++ {
		nc, err := net.Dial("tcp", p.CQLAddr)
		if err != nil {
			t.Fatalf("silent connection %d: %v", i, err)
		}
		conns = append(conns, nc)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ { // slowloris: one byte of STARTUP every 300 ms
		nc, err := net.Dial("tcp", p.CQLAddr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, nc)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := startupFrame("")
			for _, b := range f {
				select {
				case <-stop:
					return
				case <-time.After(300 * time.Millisecond):
				}
				if _, err := nc.Write([]byte{b}); err != nil {
					return
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	// The connected client and a new one are both served.
	for i := 0; i < 20; i++ {
		var n int
		if err := s.Query("SELECT k FROM atk.big WHERE k = 1").Scan(&n); err != nil {
			t.Fatalf("query %d during the attack: %v", i, err)
		}
	}
	c := cluster(p.CQLAddr)
	c.Authenticator = gocql.PasswordAuthenticator{Username: "alice", Password: "alicepw"}
	fresh, err := c.CreateSession()
	if err != nil {
		t.Fatalf("a new client could not connect during the attack: %v", err)
	}
	defer fresh.Close()
	var v string
	if err := fresh.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
		t.Fatalf("new client: %v", err)
	}
	samples := scrape(t, tokenClient(t, p.HTTPAddr, "bob", "bobpw"), "http://"+p.HTTPAddr+"/metrics")
	if got, _ := total(samples, "dohyo_cql_guard_closed_total", map[string]string{"reason": "pending_evicted"}); got < 1000 {
		t.Errorf("pending_evicted = %v, want >= 1000 (2112 connections over a budget of 512)", got)
	}
	rss.check(t, "2048 silent connections and 64 slowloris")
}

func attackNonReading(t *testing.T, p *serveProc, pid int) {
	rss := sampleRSS(t, pid)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		nc := dialCQL(t, p.CQLAddr)
		nc.(*net.TCPConn).SetReadBuffer(16 << 10)
		nc.Write(startupFrame(""))
		if op, _, err := readCQLFrame(nc); err != nil || op != 0x03 {
			t.Fatalf("STARTUP: %#x %v", op, err)
		}
		nc.Write(authResponseFrame(2, "bob", "bobpw"))
		if op, _, err := readCQLFrame(nc); err != nil || op != 0x10 {
			t.Fatalf("AUTH_RESPONSE: %#x %v", op, err)
		}
		var reqs bytes.Buffer
		for k := 0; k < 512; k++ { // 512 MiB of answers per client
			reqs.Write(queryFrame(int16(k+10), "SELECT v FROM atk.big WHERE k = 1"))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc.SetWriteDeadline(time.Now().Add(4 * time.Second))
			nc.Write(reqs.Bytes()) // blocks once dohyo stops reading
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		samples := scrape(t, tokenClient(t, p.HTTPAddr, "bob", "bobpw"), "http://"+p.HTTPAddr+"/metrics")
		if got, _ := total(samples, "dohyo_cql_backpressure_total", nil); got >= 8 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no back-pressure on the non-reading clients")
		}
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait() // the writers stop after their deadline: memory was sampled meanwhile
	rss.check(t, "8 clients that never read, 1 MiB rows")
}

func attackPasswords(t *testing.T, p *serveProc) {
	nc := dialCQL(t, p.CQLAddr)
	nc.Write(startupFrame(""))
	if op, _, err := readCQLFrame(nc); err != nil || op != 0x03 {
		t.Fatalf("STARTUP: %#x %v", op, err)
	}
	var last time.Duration
	for i := 0; i < 8; i++ {
		t0 := time.Now()
		nc.Write(authResponseFrame(int16(i+2), "bob", fmt.Sprintf("guess%d", i)))
		if op, _, err := readCQLFrame(nc); err != nil || op != 0x00 {
			t.Fatalf("guess %d: %#x %v", i, op, err)
		}
		last = time.Since(t0)
	}
	// Five failures are free; then 200ms, 400ms, 800ms.
	if last < 800*time.Millisecond {
		t.Errorf("8th guess answered after %v, want >= 800ms", last)
	}
	samples := scrape(t, tokenClient(t, p.HTTPAddr, "bob", "bobpw"), "http://"+p.HTTPAddr+"/metrics")
	if got, _ := total(samples, "dohyo_auth_throttled_total", nil); got < 3 {
		t.Errorf("dohyo_auth_throttled_total = %v, want >= 3", got)
	}
}
