package hbase

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// TestTierSharesFunctions checks that a function and an aggregate created
// through one backend of a tier are callable through another (the catalog
// and its CAS path carry them), and that a drop through the second is
// seen by the first.
func TestTierSharesFunctions(t *testing.T) {
	cat := uniqueName("udf_")
	a := openTestBackend(t, "catalog="+cat)
	b := openTestBackend(t, "catalog="+cat)
	ks := uniqueName("udfks_")
	exec(t, a, fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", ks))
	exec(t, a, fmt.Sprintf("CREATE TABLE %s.t (k int, c int, v int, PRIMARY KEY (k, c))", ks))
	exec(t, a, fmt.Sprintf("CREATE FUNCTION %s.acc (st int, x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return st + x * 2;'", ks))
	exec(t, a, fmt.Sprintf("CREATE AGGREGATE %s.dsum (int) SFUNC acc STYPE int INITCOND 0", ks))
	for c, v := range []int{1, 2, 3} {
		exec(t, b, fmt.Sprintf("INSERT INTO %s.t (k, c, v) VALUES (1, %d, %d)", ks, c, v))
	}
	res := exec(t, b, fmt.Sprintf("SELECT %s.dsum(v), %s.acc(k, v) FROM %s.t WHERE k = 1 AND c = 0", ks, ks, ks))
	if len(res.Rows) != 1 || binary.BigEndian.Uint32(res.Rows[0][0]) != 2 || binary.BigEndian.Uint32(res.Rows[0][1]) != 3 {
		t.Fatalf("through b: %v", res.Rows)
	}
	res = exec(t, b, fmt.Sprintf("SELECT %s.dsum(v) FROM %s.t WHERE k = 1", ks, ks))
	if len(res.Rows) != 1 || binary.BigEndian.Uint32(res.Rows[0][0]) != 12 {
		t.Fatalf("aggregate through b: %v", res.Rows)
	}
	exec(t, b, fmt.Sprintf("DROP AGGREGATE %s.dsum", ks))
	// a learns of the drop with its next schema refresh (polled).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := a.Execute(t.Context(), &bindings.Request{Query: fmt.Sprintf("SELECT %s.dsum(v) FROM %s.t WHERE k = 1", ks, ks)})
		if be := bindings.AsError(err); be != nil && be.Code == bindings.CodeInvalid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dropped aggregate through a: %v, want Invalid", err)
		}
	}
	exec(t, a, "DROP KEYSPACE "+ks)
}
