package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestServePythonDriver runs the DataStax Python driver against dohyo serve:
// negotiation from 66 down to 5, v3/v4/v5 with LZ4 and Snappy, every type,
// batches, paging, ordering, TTL/timestamps, LWT and error types.
func TestServePythonDriver(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	for name, backend := range clientBackends(t, "py") {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			host, port, _ := net.SplitHostPort(p.CQLAddr)
			out, err := runTool(t, 10*time.Minute, py, "testdata/python_driver_check.py", host, port)
			if err != nil || !strings.Contains(out, "OK") {
				t.Fatalf("python driver check failed: %v\n%s", err, out)
			}
		})
	}
}

// TestServePythonDriverWarnings: client warnings reach the Python
// driver's ResponseFuture.warnings on every backend: the engine's
// (embedded, HBase, with a threshold set through the configuration) and
// Cassandra's own through the relay, unchanged.
func TestServePythonDriverWarnings(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	for name, backend := range clientBackends(t, "pywarn4", "pywarn5") {
		t.Run(name, func(t *testing.T) {
			args, unlogged := []string{"--backend", backend}, "10" // Cassandra's default
			if name != "cassandra" {
				args, unlogged = append(args, "--unlogged-batch-across-partitions-warn-threshold", "3"), "3"
			}
			p := startServe(t, args...)
			host, port, _ := net.SplitHostPort(p.CQLAddr)
			out, err := runTool(t, 5*time.Minute, py, "testdata/python_warnings_check.py", host, port, unlogged)
			if err != nil || !strings.Contains(out, "OK") {
				t.Fatalf("python warnings check failed: %v\n%s", err, out)
			}
		})
	}
}

// TestServePythonDriverExtensions: UPDATE system_schema.tables SET
// extensions (how the Python driver's tests attach table extensions) is
// accepted and the driver's table metadata shows the extensions, on the
// executed backends (dohyo's catalog) and through the relay (Cassandra
// writes them).
func TestServePythonDriverExtensions(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	for name, backend := range clientBackends(t, "pyext") {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			host, port, _ := net.SplitHostPort(p.CQLAddr)
			out, err := runTool(t, 5*time.Minute, py, "testdata/python_extensions_check.py", host, port)
			if err != nil || !strings.Contains(out, "OK") {
				t.Fatalf("python extensions check failed: %v\n%s", err, out)
			}
		})
	}
}

// TestServeCqlsh runs cqlsh against dohyo serve, including DESCRIBE, which
// relies on system_schema.
func TestServeCqlsh(t *testing.T) {
	cqlsh := externalTool(t, "DOHYO_TEST_CQLSH")
	for name, backend := range clientBackends(t, "ks") {
		t.Run(name, func(t *testing.T) { testCqlsh(t, cqlsh, backend) })
	}
}

func testCqlsh(t *testing.T, cqlsh, backend string) {
	p := startServe(t, "--backend", backend)
	host, port, _ := net.SplitHostPort(p.CQLAddr)
	run := func(stmts string) string {
		t.Helper()
		out, err := runTool(t, 2*time.Minute, cqlsh, host, port, "-e", stmts)
		if err != nil {
			t.Fatalf("cqlsh -e %q: %v\n%s", stmts, err, out)
		}
		return out
	}
	run(`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.users (id int, name text, tags set<text>, PRIMARY KEY (id, name)) WITH CLUSTERING ORDER BY (name DESC);
		INSERT INTO ks.users (id, name, tags) VALUES (1, 'ada', {'math'});`)
	out := run("SELECT id, name, tags FROM ks.users WHERE id = 1")
	if !strings.Contains(out, "ada") || !strings.Contains(out, "(1 rows)") {
		t.Errorf("SELECT output:\n%s", out)
	}
	out = run("DESCRIBE KEYSPACE ks")
	for _, want := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}  AND durable_writes = true;",
		"CREATE TABLE ks.users (",
		"tags set<text>",
		"PRIMARY KEY (id, name)",
		"CLUSTERING ORDER BY (name DESC)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("DESCRIBE KEYSPACE ks lacks %q:\n%s", want, out)
		}
	}
	out, err := runTool(t, time.Minute, cqlsh, host, port, "-e", "SELECT * FROM ks.nope")
	if err == nil || !strings.Contains(out, "InvalidRequest") {
		t.Errorf("query on a missing table: err=%v\n%s", err, out)
	}
}

// TestServePythonDriverUDT runs the Python driver's UDT decoding (result
// metadata, nested frozen UDTs, field selection), its user type schema
// metadata, and a prepared SELECT across ALTER TABLE ADD (v4 and v5) on the
// executed backends.
func TestServePythonDriverUDT(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	for name, backend := range serveBackends(t) {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			host, port, _ := net.SplitHostPort(p.CQLAddr)
			out, err := runTool(t, 5*time.Minute, py, "testdata/python_udt_check.py", host, port)
			if err != nil || !strings.Contains(out, "OK") {
				t.Fatalf("python UDT check failed: %v\n%s", err, out)
			}
		})
	}
}

// TestServePythonDriverVector runs the Python driver's vector handling
// (VectorType metadata, vector values literal and bound, system_schema
// type text, similarity functions, ANN queries) on the executed backends.
func TestServePythonDriverVector(t *testing.T) {
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	for name, backend := range serveBackends(t) {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			host, port, _ := net.SplitHostPort(p.CQLAddr)
			out, err := runTool(t, 5*time.Minute, py, "testdata/python_vector_check.py", host, port)
			if err != nil || !strings.Contains(out, "OK") {
				t.Fatalf("python vector check failed: %v\n%s", err, out)
			}
		})
	}
}
