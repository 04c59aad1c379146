package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/capture"
)

// TestDescribeThroughThePipeline: DESCRIBE is an ordinary statement of the
// request pipeline (parsed by the one CQL parser, routed to the system
// keyspaces dohyo answers): it is traced (its trace, read back from
// system_traces, has the pipeline's parse and route events), counted in
// /metrics (op="describe") and captured.
func TestDescribeThroughThePipeline(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap")
	cfg := opsConfig()
	cfg.CaptureDir = dir
	p := startInProcess(t, cfg)
	s, err := cluster(p.cqlAddr()).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		"CREATE KEYSPACE dp WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE dp.t (k int PRIMARY KEY, v text)",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	metricsURL := "http://" + p.httpAddr() + "/metrics"
	before, _ := total(scrape(t, nil, metricsURL), "dohyo_requests_total", map[string]string{"op": "describe"})

	var trace bytes.Buffer
	const q = "DESCRIBE TABLE dp.t"
	iter := s.Query(q).Trace(gocql.NewTraceWriter(s, &trace)).Iter()
	var ks, typ, name, create string
	if !iter.Scan(&ks, &typ, &name, &create) || !strings.Contains(create, "CREATE TABLE dp.t") {
		t.Fatalf("%s: row %q %q %q %q", q, ks, typ, name, create)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Parsing " + q, "Routing keyspace system_schema"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("trace of %s lacks %q:\n%s", q, want, trace.String())
		}
	}
	after, ok := total(scrape(t, nil, metricsURL), "dohyo_requests_total", map[string]string{"op": "describe", "keyspace": "system_schema", "status": "ok"})
	if !ok || after-before < 1 {
		t.Errorf("dohyo_requests_total{op=describe} went from %v to %v, want one more", before, after)
	}

	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	m, err := capture.Merge(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	found := 0
	for {
		rec, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading capture: %v", err)
		}
		if rec.Query == q {
			found++
			if rec.Rows != 1 {
				t.Errorf("captured %s with %d rows, want 1", q, rec.Rows)
			}
		}
	}
	if found != 1 {
		t.Fatalf("%s captured %d times, want once", q, found)
	}
}
