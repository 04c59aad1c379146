package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/replay"
)

// replayImportOnHBase imports the workload's pcap (its keyspace only, with
// its schema) and replays it on HBase and, as the baseline, the embedded
// store. The verdict's counts must be what dohyo's own capture of the same
// traffic says they are: every request an op (a batch one, continuation
// pages none: replay pages by itself), every read compared with the answer
// Cassandra gave, the erring requests erring alike, no mismatch and no
// unexpected error. HBase's tables must then hold Cassandra's rows, write
// times included.
func replayImportOnHBase(t *testing.T, w *agreeWorkload, pcapFile, port string, served []*capture.Record, cassandra []string) {
	hbase, ok := serveBackends(t)["hbase"]
	if !ok {
		t.Skip("DOHYO_TEST_HBASE_ZK not set")
	}
	schema := filepath.Join(t.TempDir(), "schema.cql")
	if err := os.WriteFile(schema, []byte(strings.Join(agreeSchema(w.ks), ";\n")+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "imported")
	out, err := runCLI(t, "", "capture", "import", "--pcap", pcapFile, "--port", port, "--keyspace", w.ks, "--schema", schema, "--out", dir)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	// The workload's records and the USE of session A's connection.
	var uses int64
	imported := readRecords(t, dir)
	for _, r := range imported {
		if strings.HasPrefix(r.Query, "USE ") {
			uses++
		}
	}
	if n := len(imported) - int(uses); n != w.records || uses == 0 {
		t.Fatalf("--keyspace %s wrote %d records and %d USE, want the workload's %d and at least one USE\n%s", w.ks, n, uses, w.records, out)
	}

	jsonOut := filepath.Join(t.TempDir(), "r.json")
	rout, code := runReplayCLI(t, dir, "--create-schema", "--max", "--target", "embedded://memory", "--target", hbase, "--json", jsonOut)
	rep, err := replay.ReadReportFile(jsonOut)
	if err != nil {
		t.Fatalf("replay exit %d: %v\n%s", code, err, rout)
	}
	if code != 0 {
		t.Errorf("replay exit %d\n%s", code, rout)
	}
	ops, reads, erred := replayExpectations(served)
	ops += uses
	for _, st := range rep.Runs[0].Targets {
		t.Logf("%s: ops %d, compared %d, mismatches %d (between targets %d), errors %v, unexpected %d",
			st.Name, st.Ops, st.Compared, st.Mismatches, st.CrossMismatches, st.Errors, st.Unexpected)
		if st.Ops != ops || st.Compared != reads || st.Mismatches != 0 || st.CrossMismatches != 0 || st.Unexpected != 0 {
			t.Errorf("%s: ops %d, compared %d, mismatches %d, between targets %d, unexpected errors %d; want %d, %d, 0, 0, 0",
				st.Name, st.Ops, st.Compared, st.Mismatches, st.CrossMismatches, st.Unexpected, ops, reads)
		}
		if n := sumErrors(st.Errors); n != erred {
			t.Errorf("%s: %d errors %v, want the %d the capture has", st.Name, n, st.Errors, erred)
		}
		if len(st.SchemaErrors) > 0 {
			t.Errorf("%s: schema refused: %q", st.Name, st.SchemaErrors)
		}
	}
	if t.Failed() {
		t.Logf("replay output:\n%s", rout)
	}

	p := startServe(t, "--backend", hbase)
	got := dumpQueries(t, gocqlSession(t, p.CQLAddr, 4, nil), w.ks, agreeTables)
	if strings.Join(got, "\n") != strings.Join(cassandra, "\n") {
		t.Errorf("HBase's rows after the replay differ from Cassandra's:\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(cassandra, "\n"))
	}
}

// replayExpectations counts, from dohyo's capture, the ops replay runs (a
// batch is one; continuation pages are not re-sent), the reads it
// compares (answered with rows) and the ops that erred.
func replayExpectations(recs []*capture.Record) (ops, reads, erred int64) {
	for _, r := range recs {
		if r.Paging || r.BatchIndex > 0 {
			continue
		}
		ops++
		switch {
		case r.Err:
			erred++
		case r.ResultKind == bindings.ResultRows:
			reads++
		}
	}
	return ops, reads, erred
}

func sumErrors(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
