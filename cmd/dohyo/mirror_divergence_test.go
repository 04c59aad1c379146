package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestServeMirrorDivergenceCounted: dohyo serve on the real HBase,
// mirrored (every read sampled, schema statements too) to an empty second
// dohyo over CQL, which gets the keyspace and table from the primary's
// DDL. A row changed
// directly on the mirror is one counted mismatch, with the read's
// statement and bound value as the example, in /admin/mirror and
// /metrics; the reads of unchanged rows compare equal.
func TestServeMirrorDivergenceCounted(t *testing.T) {
	zk := os.Getenv("DOHYO_TEST_HBASE_ZK")
	if zk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_HBASE_ZK is not set: CI runs the mirror tests on HBase (run via make test)")
		}
		t.Skip("DOHYO_TEST_HBASE_ZK not set")
	}
	const ks = "mirror_diverge"
	ddl := []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v text)",
	}
	m := startMirrorProc(t)
	ms := gocqlSession(t, m.addr, 4, nil)
	// The mirror starts empty: --mirror-schema gives it the keyspace and
	// table as they are created through the primary.
	p := startServe(t, "--backend", fmt.Sprintf("hbase://%s?salt=4&catalog=mdiv%d", zk, time.Now().UnixNano()),
		"--mirror", ks+"="+m.url(), "--mirror-read-sample", "1", "--mirror-schema")
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	for _, q := range ddl {
		mustExec(t, s, q)
	}
	const rows = 10
	for k := 0; k < rows; k++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO %s.t (k, v) VALUES (%d, 'same')", ks, k))
	}
	waitMirrored(t, p.HTTPAddr)
	mustExec(t, ms, "UPDATE "+ks+".t SET v = 'changed on the mirror' WHERE k = 7")
	for k := 0; k < rows; k++ {
		var v string
		if err := s.Query("SELECT v FROM "+ks+".t WHERE k = ?", k).Scan(&v); err != nil || v != "same" {
			t.Fatalf("read k=%d through the primary: %q, %v", k, v, err)
		}
	}
	st := waitMirrored(t, p.HTTPAddr)
	if st.Failed != 0 {
		t.Fatalf("status %+v: the mirror failed requests (its schema came late?)", st)
	}
	if st.Compared != rows || st.Mismatches != 1 || len(st.Examples) != 1 {
		t.Fatalf("status %+v: want %d reads compared, exactly 1 mismatch with its example", st, rows)
	}
	ex := st.Examples[0]
	if ex.Statement != "SELECT v FROM "+ks+".t WHERE k = ?" || ex.Values != "0x00000007" || ex.Keyspace != ks {
		t.Errorf("example %+v: want the read of k = 7", ex)
	}
	metrics := httpGet(t, "http://"+p.HTTPAddr+"/metrics")
	if !strings.Contains(metrics, fmt.Sprintf("dohyo_mirror_mismatches_total{mirror=%q} 1", m.url())) ||
		!strings.Contains(metrics, fmt.Sprintf(`dohyo_mirror_class_mismatches_total{class="SELECT v FROM %s.t WHERE k = ?",mirror=%q} 1`, ks, m.url())) {
		t.Errorf("/metrics lacks the mismatch counts:\n%s", grepLines(metrics, "dohyo_mirror_"))
	}
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
