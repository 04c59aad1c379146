package main

import (
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"golang.org/x/crypto/bcrypt"
)

func bcryptHash(t *testing.T, pass string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// TestServeAuthGocql: SASL PLAIN with gocql's PasswordAuthenticator, users
// from --auth-user and from --auth-users-file.
func TestServeAuthGocql(t *testing.T) {
	usersFile := filepath.Join(t.TempDir(), "users")
	writeFile(t, usersFile, []byte("# file users\nbob:"+bcryptHash(t, "bobpw")+"\n"))
	p := startServe(t, "--backend", "embedded://memory",
		"--auth-user", "alice:"+bcryptHash(t, "alicepw"), "--auth-users-file", usersFile)

	connect := func(user, pass string) (*gocql.Session, error) {
		c := cluster(p.CQLAddr)
		c.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: pass}
		return c.CreateSession()
	}
	for user, pass := range map[string]string{"alice": "alicepw", "bob": "bobpw"} {
		s, err := connect(user, pass)
		if err != nil {
			t.Fatalf("%s with the right password: %v", user, err)
		}
		var v string
		if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil || !strings.Contains(v, "dohyo") {
			t.Errorf("%s: release_version %q, %v", user, v, err)
		}
		s.Close()
	}
	for _, tc := range []struct{ user, pass string }{{"alice", "bobpw"}, {"mallory", "alicepw"}} {
		s, err := connect(tc.user, tc.pass)
		if err == nil {
			s.Close()
			t.Fatalf("%s/%s connected", tc.user, tc.pass)
		}
		if want := "Provided username " + tc.user + " and/or password are incorrect"; !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q lacks %q", tc.user, err, want)
		}
	}
	// No credentials at all: the driver refuses the AUTHENTICATE request.
	if s, err := cluster(p.CQLAddr).CreateSession(); err == nil {
		s.Close()
		t.Error("connected without credentials")
	}
	// With authentication on, /metrics on the HTTP port needs a token too.
	if res, err := http.Get("http://" + p.HTTPAddr + "/metrics"); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %v %v, want 401", res.Status, err)
	} else {
		res.Body.Close()
	}
	samples := scrape(t, tokenClient(t, p.HTTPAddr, "alice", "alicepw"), "http://"+p.HTTPAddr+"/metrics")
	if got, _ := total(samples, "dohyo_auth_failures_total", nil); got < 2 {
		t.Errorf("dohyo_auth_failures_total = %v, want >= 2", got)
	}
	if out := p.Output(); !strings.Contains(out, "authentication failed") || strings.Contains(out, "alicepw") {
		t.Errorf("log: want failed logins logged without passwords:\n%s", out)
	}
}

// TestServeAuthPythonDriver: the DataStax Python driver's
// PlainTextAuthProvider against dohyo's PasswordAuthenticator.
func TestServeAuthPythonDriver(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	p := startServe(t, "--backend", "embedded://memory", "--auth-user", "py:"+bcryptHash(t, "pypw"))
	host, port, _ := net.SplitHostPort(p.CQLAddr)
	out, err := runTool(t, 3*time.Minute, py, "testdata/python_auth_check.py", host, port, "py", "pypw")
	if err != nil || !strings.Contains(out, "OK") {
		t.Fatalf("python auth check failed: %v\n%s", err, out)
	}
}

// tokenClient logs in at POST /v1/auth and returns a client that sends
// the token with every request.
func tokenClient(t *testing.T, httpAddr, user, pass string) *http.Client {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"username": user, "password": pass})
	res, err := http.Post("http://"+httpAddr+"/v1/auth", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		AuthToken string `json:"authToken"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("login %s: %s %v", user, res.Status, err)
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: tokenTransport(out.AuthToken)}
}

type tokenTransport string

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Cassandra-Token", string(tt))
	return http.DefaultTransport.RoundTrip(r)
}
