package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/httpsec"
)

// authUser is a NAME:BCRYPT_HASH entry whose password is "pw-"+name.
func authUser(t *testing.T, name string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte("pw-"+name), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return name + ":" + string(h)
}

// httpCall sends one request to the in-process server; hdr "Host" sets
// the Host header.
func httpCall(t *testing.T, p *inproc, method, path, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+p.httpAddr()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

func httpLogin(t *testing.T, p *inproc, user, password string) string {
	t.Helper()
	status, body := httpCall(t, p, "POST", httpsec.AuthPath, fmt.Sprintf(`{"username":%q,"password":%q}`, user, password), nil)
	var out struct {
		AuthToken string `json:"authToken"`
	}
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &out) != nil || out.AuthToken == "" {
		t.Fatalf("login %s: %d %s", user, status, body)
	}
	return out.AuthToken
}

// TestServeHTTPNeedsIdentity: with auth-user set, dohyo serve's HTTP
// listener answers only health probes and the playground's static files
// without a token; the token comes from the users the CQL listener
// authenticates; admin endpoints need an admin-user; capture dirs must lie
// under the capture root.
func TestServeHTTPNeedsIdentity(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	cfg := opsConfig()
	cfg.AuthUsers = []string{authUser(t, "alice")} // a bootstrap superuser
	cfg.AdminUsers = []string{"carol"}
	cfg.CaptureRoot = root
	cfg.HTTPPprof = true
	p := startInProcess(t, cfg)

	// One identity model: roles made with CQL log in over HTTP too.
	c := cluster(p.cqlAddr())
	c.Authenticator = gocql.PasswordAuthenticator{Username: "alice", Password: "pw-alice"}
	s := session(t, c)
	mustExec(t, s, "CREATE ROLE bob WITH PASSWORD = 'pw-bob' AND LOGIN = true")
	mustExec(t, s, "CREATE ROLE carol WITH PASSWORD = 'pw-carol' AND LOGIN = true")
	mustExec(t, s, "CREATE KEYSPACE sechttp WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE sechttp.t (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO sechttp.t (k, v) VALUES (1, 'private')")

	read := "/graphql/sechttp?query=" + url.QueryEscape(`{ t { values { v } } }`)
	drop := `{"query":"mutation { dropKeyspace(name: \"sechttp\") }"}`
	for _, c := range []struct{ method, path, body string }{
		{"GET", read, ""}, {"POST", "/graphql-schema", drop}, {"GET", "/metrics", ""},
		{"GET", "/admin/capture", ""}, {"POST", "/admin/capture/stop", ""}, {"POST", "/admin/capture/start?dir=" + outside, ""},
		{"GET", "/debug/pprof/", ""},
	} {
		status, body := httpCall(t, p, c.method, c.path, c.body, nil)
		if status != http.StatusUnauthorized || !strings.Contains(body, `"message":"Missing token`) {
			t.Errorf("%s %s without a token: %d %.200s, want 401 with a JSON error", c.method, c.path, status, body)
		}
	}
	for _, path := range []string{"/health/liveness", "/health/readiness", "/playground"} {
		if status, body := httpCall(t, p, "GET", path, "", nil); status != 200 {
			t.Errorf("GET %s without a token: %d %.200s, want 200", path, status, body)
		}
	}
	if status, body := httpCall(t, p, "POST", httpsec.AuthPath, `{"username":"`+strings.Repeat("a", 20<<10)+`","password":"x"}`, nil); status != http.StatusRequestEntityTooLarge {
		t.Errorf("20 KiB login body: %d %.200s, want 413", status, body)
	}
	bob := map[string]string{httpsec.TokenHeader: httpLogin(t, p, "bob", "pw-bob")}
	carol := map[string]string{httpsec.TokenHeader: httpLogin(t, p, "carol", "pw-carol")}
	alice := map[string]string{"Authorization": "Bearer " + httpLogin(t, p, "alice", "pw-alice")}
	// Roles and grants hold on GraphQL: bob reads only once granted SELECT,
	// and may not drop the keyspace.
	if status, body := httpCall(t, p, "GET", read, "", bob); status != 200 || !strings.Contains(body, "User bob has no SELECT permission on \\u003ctable sechttp.t") || strings.Contains(body, "private") {
		t.Errorf("GraphQL read without a grant: %d %s", status, body)
	}
	mustExec(t, s, "GRANT SELECT ON KEYSPACE sechttp TO bob")
	poll(t, 10*time.Second, "bob's SELECT grant on GraphQL", func() bool {
		_, body := httpCall(t, p, "GET", read, "", bob)
		return strings.Contains(body, "private")
	})
	if status, body := httpCall(t, p, "POST", "/graphql-schema", drop, bob); status != 200 || !strings.Contains(body, "User bob has no DROP permission on \\u003ckeyspace sechttp") {
		t.Errorf("GraphQL dropKeyspace as bob: %d %s", status, body)
	}
	if status, body := httpCall(t, p, "GET", read, "", alice); status != 200 || !strings.Contains(body, "private") {
		t.Errorf("keyspace gone or superuser refused: %d %s", status, body)
	}
	if status, body := httpCall(t, p, "GET", "/metrics", "", bob); status != 200 || !strings.Contains(body, "dohyo_") {
		t.Errorf("/metrics with a token: %d %.200s", status, body)
	}
	for _, path := range []string{"/admin/capture", "/debug/pprof/"} {
		if status, body := httpCall(t, p, "GET", path, "", bob); status != http.StatusForbidden {
			t.Errorf("GET %s as bob (no admin): %d %.200s, want 403", path, status, body)
		}
		if status, body := httpCall(t, p, "GET", path, "", alice); status != 200 {
			t.Errorf("GET %s as alice (superuser): %d %.200s, want 200", path, status, body)
		}
		if status, body := httpCall(t, p, "GET", path, "", carol); status != 200 {
			t.Errorf("GET %s as carol (admin-user): %d %.200s, want 200", path, status, body)
		}
	}

	// Capture directories: under the root only.
	escape := filepath.Join(root, "link")
	if err := os.Symlink(outside, escape); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{outside, filepath.Join(root, "..", filepath.Base(outside)), "../x", filepath.Join(escape, "cap")} {
		status, body := httpCall(t, p, "POST", "/admin/capture/start?dir="+url.QueryEscape(dir), "", alice)
		if status != http.StatusBadRequest {
			t.Errorf("capture start in %s: %d %s, want 400", dir, status, body)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("capture wrote outside its root: %v", entries)
	}
	status, body := httpCall(t, p, "POST", "/admin/capture/start?dir=cap", "", alice)
	if status != 200 || !strings.Contains(body, filepath.Join(root, "cap")) {
		t.Fatalf("capture start under the root: %d %s", status, body)
	}
	if status, body := httpCall(t, p, "POST", "/admin/capture/stop", "", alice); status != 200 {
		t.Errorf("capture stop: %d %s", status, body)
	}
}

// TestServeHTTPBrowserChecks: a foreign Host (DNS rebinding) and a
// cross-origin POST are refused; a mutation over GET is 405.
func TestServeHTTPBrowserChecks(t *testing.T) {
	p := startInProcess(t, opsConfig())
	s := session(t, cluster(p.cqlAddr()))
	mustExec(t, s, "CREATE KEYSPACE sechttp2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	drop := `{"query":"mutation { dropKeyspace(name: \"sechttp2\") }"}`
	if status, body := httpCall(t, p, "POST", "/graphql-schema", drop, map[string]string{"Host": "rebind.attacker.example"}); status != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %d %s, want 421", status, body)
	}
	if status, body := httpCall(t, p, "POST", "/graphql-schema", drop, map[string]string{"Origin": "http://attacker.example"}); status != http.StatusForbidden {
		t.Errorf("cross-origin POST: %d %s, want 403", status, body)
	}
	get := "/graphql-schema?query=" + url.QueryEscape(`mutation { dropKeyspace(name: "sechttp2") }`)
	if status, body := httpCall(t, p, "GET", get, "", nil); status != http.StatusMethodNotAllowed {
		t.Errorf("GET mutation: %d %s, want 405", status, body)
	}
	// Oversized bodies and headers.
	if status, body := httpCall(t, p, "POST", "/graphql-schema", `{"query":"`+strings.Repeat(" ", 5<<20)+`{ keyspaces { name } }"}`, nil); status != http.StatusRequestEntityTooLarge {
		t.Errorf("5 MiB body: %d %.200s, want 413", status, body)
	}
	if status, _ := httpCall(t, p, "GET", "/health/liveness", "", map[string]string{"X-Big": strings.Repeat("a", 2<<20)}); status != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("2 MiB header: %d, want 431", status)
	}
	var name string
	if err := s.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = 'sechttp2'").Scan(&name); err != nil {
		t.Errorf("keyspace dropped: %v", err)
	}
}

// TestServeHTTPSlowloris: clients that trickle their headers or bodies are
// cut off by the server after the read timeouts (not before them, and not
// by giving up themselves a minute later), and other clients are served
// meanwhile, about as fast as before the attack.
func TestServeHTTPSlowloris(t *testing.T) {
	cfg := opsConfig()
	cfg.HTTPReadHeaderTimeout = 500 * time.Millisecond
	cfg.HTTPReadTimeout = time.Second
	p := startInProcess(t, cfg)
	const query = `{"query":"{ keyspaces { name } }"}`
	// The reference: the real client's request on this machine, now.
	var ref time.Duration
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		if status, body := httpCall(t, p, "POST", "/graphql-schema", query, nil); status != 200 {
			t.Fatalf("real client before the attack: %d %s", status, body)
		}
		ref = max(ref, time.Since(t0))
	}
	const n, giveUp = 40, time.Minute
	type cutOff struct {
		after  time.Duration
		closed bool // by the server; false: the client gave up
	}
	cut := make(chan cutOff, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			start := time.Now() // before the server accepts, so before its timers start
			conn, err := net.DialTimeout("tcp", p.httpAddr(), 30*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			head := "GET /health/liveness HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			if i%2 == 1 { // a body that never finishes
				head = "POST /graphql-schema HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
			}
			if _, err := conn.Write([]byte(head)); err != nil {
				t.Error(err)
				return
			}
			// Trickle a byte every 100 ms until the server closes, giving up
			// after a minute (a bound only against hanging).
			closed := false
			for !closed && time.Since(start) < giveUp {
				conn.SetWriteDeadline(time.Now().Add(time.Second))
				if _, err := conn.Write([]byte("X")); err != nil {
					closed = true
					break
				}
				conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
				if _, err := bufio.NewReader(conn).ReadByte(); err != nil && !isTimeout(err) {
					closed = true // closed (or answered 408, then closed)
				}
			}
			cut <- cutOff{time.Since(start), closed}
		}(i)
	}
	// Meanwhile a real client is served, within a bound derived from the
	// reference: 20 times it, plus 2s for a loaded machine's stalls.
	bound := 20*ref + 2*time.Second
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		if status, body := httpCall(t, p, "POST", "/graphql-schema", query, nil); status != 200 {
			t.Errorf("real client during the attack: %d %s", status, body)
		}
		if took := time.Since(t0); took > bound {
			t.Errorf("real client waited %v during the attack; %v before it (bound %v)", took, ref, bound)
		}
	}
	wg.Wait()
	close(cut)
	for c := range cut {
		if !c.closed {
			t.Errorf("a slow client was still connected after %v: the server never cut it off", c.after)
		} else if c.after < cfg.HTTPReadHeaderTimeout {
			t.Errorf("a slow client was cut off after %v, before the %v read-header timeout", c.after, cfg.HTTPReadHeaderTimeout)
		}
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
