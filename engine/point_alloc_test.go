package engine

import (
	"reflect"
	"testing"
)

// TestUnrestrictedClusteringIsShared checks the shared evaluations of an
// unrestricted clustering plan: statements of every kind on tables with and
// without clustering columns use them, and none may change them (they would
// then leak into every later statement).
func TestUnrestrictedClusteringIsShared(t *testing.T) {
	want := [2]ckEval{{prefixes: [][][]byte{nil}}, {prefixes: [][][]byte{nil}, full: true}}
	if !reflect.DeepEqual(unrestricted, want) {
		t.Fatalf("unrestricted starts as %+v, want %+v", unrestricted, want)
	}
	h := newHarness(t)
	h.exec("CREATE TABLE kv (k int PRIMARY KEY, v text, l list<int>)")
	h.exec("CREATE TABLE cl (p int, c int, v text, s int static, PRIMARY KEY (p, c))")
	for _, q := range []string{
		"INSERT INTO kv (k, v, l) VALUES (1, 'a', [1, 2])",
		"UPDATE kv SET l = l + [3], v = 'b' WHERE k = 1",
		"UPDATE kv SET l[0] = 9 WHERE k = 1",
		"INSERT INTO kv (k, v) VALUES (2, 'x') IF NOT EXISTS",
		"UPDATE kv SET v = 'y' WHERE k = 2 IF v = 'x'",
		"DELETE l[1] FROM kv WHERE k = 1",
		"INSERT INTO cl (p, c, v, s) VALUES (1, 1, 'a', 5)",
		"UPDATE cl SET s = 6 WHERE p = 1",
		"DELETE FROM cl WHERE p = 1 AND c > 5",
		"DELETE FROM kv WHERE k = 2",
	} {
		h.exec(q)
	}
	h.expectRows("SELECT k, v, l FROM kv WHERE k = 1", "1 | 'b' | [9, 3]")
	h.expectRows("SELECT p, c, v, s FROM cl WHERE p = 1", "1 | 1 | 'a' | 6")
	h.expectRows("SELECT * FROM kv WHERE k = 2")
	if !reflect.DeepEqual(unrestricted, want) {
		t.Fatalf("unrestricted changed to %+v", unrestricted)
	}
}
