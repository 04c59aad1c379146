package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rolesCheck runs one phase of testdata/python_roles_check.py.
func rolesCheck(t *testing.T, py string, args ...string) {
	t.Helper()
	out, err := runTool(t, 5*time.Minute, py, append([]string{"testdata/python_roles_check.py"}, args...)...)
	if err != nil || !strings.Contains(out, "OK") {
		t.Fatalf("python roles check %s failed: %v\n%s", args[0], err, out)
	}
}

func hostPort(addr string) (string, string) {
	h, p, _ := net.SplitHostPort(addr)
	return h, p
}

// TestServeRolesPythonDriver: with --auth-user, roles and grants made with
// CQL are enforced on every statement (Python driver: simple, prepared and
// batch statements), on the embedded store (the roles survive a restart)
// and on HBase (a second dohyo on the same HBase shares them and sees a
// REVOKE within the validity period).
func TestServeRolesPythonDriver(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	admin := "admin:" + bcryptHash(t, "adminpw")
	t.Run("embedded", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		url := "embedded://" + dir
		p := startServe(t, "--backend", url, "--auth-user", admin)
		h, port := hostPort(p.CQLAddr)
		rolesCheck(t, py, "setup", h, port, "admin", "adminpw", "secroles")
		p.stop(t)
		p = startServe(t, "--backend", url, "--auth-user", admin)
		h, port = hostPort(p.CQLAddr)
		rolesCheck(t, py, "login", h, port, "secroles")
	})
	t.Run("hbase", func(t *testing.T) {
		zk := os.Getenv("DOHYO_TEST_HBASE_ZK")
		if zk == "" {
			if os.Getenv("CI") == "true" {
				t.Fatal("DOHYO_TEST_HBASE_ZK is not set: CI runs this test on HBase too (run via make test)")
			}
			t.Skip("DOHYO_TEST_HBASE_ZK not set")
		}
		url := serveBackends(t)["hbase"]
		p1 := startServe(t, "--backend", url, "--auth-user", admin)
		h1, port1 := hostPort(p1.CQLAddr)
		rolesCheck(t, py, "setup", h1, port1, "admin", "adminpw", "secroles")
		// The second instance starts after the keyspace exists (it reads the
		// schema catalog at start); the roles it reads from HBase.
		p2 := startServe(t, "--backend", url, "--auth-user", admin)
		h2, port2 := hostPort(p2.CQLAddr)
		rolesCheck(t, py, "shared", h1, port1, h2, port2, "admin", "adminpw", "secroles")
	})
}

// TestServeRolesCqlsh: cqlsh renders LIST ROLES and LIST PERMISSIONS.
func TestServeRolesCqlsh(t *testing.T) {
	cqlsh := externalTool(t, "DOHYO_TEST_CQLSH")
	p := startServe(t, "--backend", "embedded://memory", "--auth-user", "admin:"+bcryptHash(t, "adminpw"))
	h, port := hostPort(p.CQLAddr)
	out, err := runTool(t, 2*time.Minute, cqlsh, h, port, "-u", "admin", "-p", "adminpw", "-e",
		`CREATE ROLE reader WITH PASSWORD = 'r' AND LOGIN = true;
		CREATE KEYSPACE secroles WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		GRANT SELECT ON KEYSPACE secroles TO reader;
		LIST ROLES;
		LIST ALL PERMISSIONS OF reader;`)
	if err != nil {
		t.Fatalf("cqlsh: %v\n%s", err, out)
	}
	t.Logf("cqlsh output:\n%s", out)
	for _, want := range []string{"role", "super", "login", "options", "datacenters", "admin", "reader",
		"(2 rows)", "<keyspace secroles>", "SELECT", "(1 rows)"} {
		if !strings.Contains(out, want) {
			t.Errorf("cqlsh output lacks %q:\n%s", want, out)
		}
	}
}

// TestServeRolesRelayed: in front of Cassandra alone dohyo keeps no roles,
// so role statements reach Cassandra, which answers them (here: its
// AllowAllAuthenticator's refusal).
func TestServeRolesRelayed(t *testing.T) {
	addr := cassandraAddr(t)
	p := startServe(t, "--backend", "cassandra://"+addr)
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	err := s.Query("LIST ROLES").Exec()
	if err == nil || !strings.Contains(err.Error(), "You have to be logged in and not anonymous to perform this request") {
		t.Fatalf("LIST ROLES through the relay: %v, want Cassandra's own answer", err)
	}
}
