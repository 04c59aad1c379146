package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/capture"
)

// The real full query logs of capture/fql's tests: cqlsh (protocol v5)
// and a gocql mix (v4), both from Cassandra 5.0.9.
const (
	fqlCqlsh = "../../capture/fql/testdata/cqlsh-v5"
	fqlMix   = "../../capture/fql/testdata/mix"
)

// TestCaptureImportFQL imports two nodes' logs and reads the capture back
// with inspect, verify and dump.
func TestCaptureImportFQL(t *testing.T) {
	capDir := filepath.Join(t.TempDir(), "cap")
	out, err := runCLI(t, "", "capture", "import", "--fql", fqlCqlsh, fqlMix, "--out", capDir, "--node", "prod")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, want := range []string{
		"read 131 entries from 2 files of 2 logs\n",
		"imported 131 entries (3 batches) as 138 records into " + capDir + " (1 segments)\n",
		"skipped 0 entries\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	out, err = runCLI(t, "", "capture", "inspect", capDir)
	if err != nil || !strings.Contains(out, "records            138\n") || !strings.Contains(out, "sessions           2\n") ||
		!strings.Contains(out, "nodes              [prod]\n") {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "capture", "verify", capDir)
	if err != nil || !strings.Contains(out, "1 segments, 138 records") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "capture", "dump", capDir)
	if err != nil || strings.Count(out, "\n") != 138 || !strings.Contains(out, `"batch":{"index":3,"size":4,"type":"LOGGED"}`) {
		t.Fatalf("dump: %v\n%.2000s", err, out)
	}
}

// TestCaptureImportKeyspace: --keyspace writes the records of one
// keyspace (named in the statement or the session's) and counts the rest.
func TestCaptureImportKeyspace(t *testing.T) {
	const ks = "fql1796617090256638584" // the mix's keyspace
	capDir := filepath.Join(t.TempDir(), "cap")
	out, err := runCLI(t, "", "capture", "import", "--fql", fqlMix, "--out", capDir, "--keyspace", ks)
	want := "--keyspace " + ks + ": wrote 84 of 108 records, left out 24 (system 24)\n"
	if err != nil || !strings.Contains(out, want) {
		t.Fatalf("import: %v\n%s\nwant %q", err, out, want)
	}
	recs := readRecords(t, capDir)
	if len(recs) != 84 {
		t.Fatalf("%d records written, want 84", len(recs))
	}
	for _, r := range recs {
		if r.Keyspace != ks && !strings.Contains(r.Query, ks) {
			t.Errorf("%q in keyspace %q written", r.Query, r.Keyspace)
		}
	}
}

// TestCaptureImportFQLDamaged imports a log cut inside an entry and one
// with a damaged entry: the summary says what was skipped and where the
// file stopped.
func TestCaptureImportFQLDamaged(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fqlCqlsh, "20261207-03.cq4"))
	if err != nil {
		t.Fatal(err)
	}
	cut := t.TempDir()
	if err := os.WriteFile(filepath.Join(cut, "20261207-03.cq4"), b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	d := append([]byte(nil), b...)
	i := strings.Index(string(d), "query-options")
	d[i+len("query-options")] = 0x99 // not a value code
	if err := os.WriteFile(filepath.Join(bad, "20261207-03.cq4"), d, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "", "capture", "import", "--fql", cut, "--fql", bad, "--out", filepath.Join(t.TempDir(), "cap"))
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, want := range []string{
		"read 59 entries from 2 files of 2 logs\n",
		"imported 58 entries",
		"skipped 1 entries:\n  1\tmalformed entry (first: " + bad,
		"field \"query-options\"",
		"tail: " + cut + "/20261207-03.cq4 at offset ",
		": the file ends inside an entry (entries before it were read)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestCaptureImportEmptyAsUnset: the Python driver's unset values are
// logged as empty; --empty-as-unset brings them back.
func TestCaptureImportEmptyAsUnset(t *testing.T) {
	out, err := runCLI(t, "", "capture", "import", "--fql", "../../capture/fql/testdata/python-v5",
		"--out", filepath.Join(t.TempDir(), "cap"), "--empty-as-unset")
	if err != nil || !strings.Contains(out, "imported 2 empty values as unset (--empty-as-unset)\n") {
		t.Fatalf("import: %v\n%s", err, out)
	}
}

func TestCaptureImportEmptyDir(t *testing.T) {
	empty := t.TempDir()
	out, err := runCLI(t, "", "capture", "import", "--fql", empty, "--out", filepath.Join(t.TempDir(), "cap"))
	if err != nil || !strings.Contains(out, "warning: "+empty+" holds no .cq4 files\n") || !strings.Contains(out, "read 0 entries from 0 files of 1 logs") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "", "capture", "import", "--fql", filepath.Join(empty, "missing"), "--out", filepath.Join(t.TempDir(), "cap")); err == nil {
		t.Fatal("a missing directory imported without an error")
	}
}

// TestCaptureImportSchemaOneSession: --schema fills the capture header's
// DDL (replay --create-schema), --one-session puts both nodes in one
// session.
func TestCaptureImportSchemaOneSession(t *testing.T) {
	ddl := "CREATE KEYSPACE k1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE k1.t (k int PRIMARY KEY, v text);\n"
	schema := filepath.Join(t.TempDir(), "schema.cql")
	if err := os.WriteFile(schema, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	capDir := filepath.Join(t.TempDir(), "cap")
	out, err := runCLI(t, "", "capture", "import", "--fql", fqlCqlsh, "--fql", fqlMix, "--out", capDir, "--schema", schema, "--one-session")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "capture", "inspect", capDir)
	if err != nil || !strings.Contains(out, "sessions           1\n") {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	m, err := capture.Merge(context.Background(), capDir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Next(); err != nil {
		t.Fatal(err)
	}
	if h := m.Headers(); len(h) != 1 || h[0].SchemaDDL != ddl {
		t.Fatalf("headers %+v, want the schema file's DDL", h)
	}
}

// TestCaptureImportSchemaFile: --schema leaves out cqlsh's warning lines
// (a redirected DESCRIBE holds them) and refuses a file that is not CQL.
func TestCaptureImportSchemaFile(t *testing.T) {
	dir := t.TempDir()
	ddl := "CREATE KEYSPACE k1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"
	good := filepath.Join(dir, "described.cql")
	if err := os.WriteFile(good, []byte("WARNING: cqlsh was built against 5.0.0, but this server is 5.0.9.  All features may not work!\n\n"+ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readSchemaFile(good)
	if err != nil || got != ddl {
		t.Fatalf("readSchemaFile = %q, %v; want %q", got, err, ddl)
	}
	bad := filepath.Join(dir, "bad.cql")
	if err := os.WriteFile(bad, []byte("Connection error: ('Unable to connect to any servers')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "", "capture", "import", "--fql", fqlMix, "--out", filepath.Join(dir, "cap"), "--schema", bad)
	if err == nil || !strings.Contains(out+err.Error(), "--schema "+bad+": ") {
		t.Fatalf("a schema file that is not CQL imported: %v\n%s", err, out)
	}
}
