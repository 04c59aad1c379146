package cql

import "testing"

var fingerprintCases = []struct{ in, want string }{
	{"SELECT * FROM t WHERE k=1", "SELECT * FROM t WHERE k = ?"},
	{"select *  from t where k = 2", "SELECT * FROM t WHERE k = ?"},
	{"  SELECT   a   FROM   t   /* comment */  WHERE   k = ?  -- x", "SELECT a FROM t WHERE k = ?"},
	{"select * from t;", "SELECT * FROM t"},
	{"select * from t;;", "SELECT * FROM t"},
	{"SELECT a,b FROM ks.t WHERE k IN (1,2,3) AND c IN ? AND d IN :ds AND (c1,c2) IN ((1,2),(3,4)) LIMIT 5",
		"SELECT a, b FROM ks.t WHERE k IN (?) AND c IN ? AND d IN :ds AND (c1, c2) IN (?) LIMIT ?"},
	{"SELECT * FROM t WHERE k IN (1)", "SELECT * FROM t WHERE k IN (?)"},
	{"SELECT * FROM t WHERE k IN (?, ?, ?)", "SELECT * FROM t WHERE k IN (?)"},
	{"SELECT * FROM t WHERE (c1, c2) > (1, 2)", "SELECT * FROM t WHERE (c1, c2) > (?, ?)"},
	{"INSERT INTO t (k, v, l, s, m, u) VALUES (-1, 'x', [1,2], {1}, {'a': [1]}, {f: 1}) IF NOT EXISTS USING TTL 5",
		"INSERT INTO t(k, v, l, s, m, u) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?"},
	{"INSERT INTO t JSON '{\"k\": 1}'", "INSERT INTO t JSON ?"},
	{"UPDATE t SET m['k'] = 'v', c = c + 1, l = l - [1], s += {2} WHERE k = 0x00 AND id = 123e4567-e89b-12d3-a456-426614174000",
		"UPDATE t SET m[?] = ?, c = c + ?, l = l - ?, s += ? WHERE k = ? AND id = ?"},
	{"UPDATE t SET c = c -1 WHERE k = -1", "UPDATE t SET c = c - ? WHERE k = ?"},
	{"UPDATE t SET v = 1 WHERE k = 1 IF v != NaN AND w = -Infinity AND x = 1h30m AND y = true AND z = null AND q = 1.5e3 AND r = $$s$$",
		"UPDATE t SET v = ? WHERE k = ? IF v != ? AND w = ? AND x = ? AND y = ? AND z = ? AND q = ? AND r = ?"},
	{"SELECT COUNT(*), count (v), WRITETIME(v), TTL(v), toTimestamp(now()), CAST(v AS text) FROM t WHERE token(k) > ? ALLOW FILTERING",
		"SELECT COUNT(*), COUNT(v), WRITETIME(v), TTL(v), toTimestamp(now()), CAST(v AS TEXT) FROM t WHERE TOKEN(k) > ? ALLOW FILTERING"},
	{`SELECT "Key" FROM "T" WHERE "Key" = :"Named" AND b = :b`, `SELECT "Key" FROM "T" WHERE "Key" = :"Named" AND b = :b`},
	{"DELETE m['a'], l[1] FROM t USING TIMESTAMP 5 WHERE k = 1", "DELETE m[?], l[?] FROM t USING TIMESTAMP ? WHERE k = ?"},
	{"SELECT * FROM t WHERE s CONTAINS [1]", "SELECT * FROM t WHERE s CONTAINS ?"},
	{"BEGIN UNLOGGED BATCH INSERT INTO t (k) VALUES (1);; UPDATE t SET v=2 WHERE k=3 APPLY BATCH;",
		"BEGIN UNLOGGED BATCH INSERT INTO t(k) VALUES (?); UPDATE t SET v = ? WHERE k = ? APPLY BATCH"},
	{"CREATE TABLE t (k int, m map<text, frozen<list<int>>>, PRIMARY KEY ((k), c)) WITH comment = 'x'",
		"CREATE TABLE t(k INT, m MAP<TEXT, FROZEN<LIST<INT>>>, PRIMARY KEY ((k), c)) WITH comment = ?"},
	{"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE KEYSPACE ks WITH replication = ?"},
	{"SELECT * FROM t WHERE c > 1 AND c <= 2", "SELECT * FROM t WHERE c > ? AND c <= ?"},
	{"SELECT * FROM t WHERE k = 'unterminated", "SELECT * FROM t WHERE k = ?"},
	{"SELECT * FROM t WHERE k = #  and x=1", "SELECT * FROM t WHERE k = # AND x = ?"},
	{"SELECT * FROM t /* unterminated", "SELECT * FROM t"},
	{"", ""},
}

func TestFingerprint(t *testing.T) {
	for _, tc := range fingerprintCases {
		if got := Fingerprint(tc.in); got != tc.want {
			t.Errorf("Fingerprint(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// Fingerprints are stable: fingerprinting a fingerprint changes nothing.
func TestFingerprintIdempotent(t *testing.T) {
	for _, tc := range fingerprintCases {
		fp := Fingerprint(tc.in)
		if again := Fingerprint(fp); again != fp {
			t.Errorf("Fingerprint(Fingerprint(%q)) = %q, want %q", tc.in, again, fp)
		}
	}
}

func TestFingerprintClasses(t *testing.T) {
	same := [][]string{
		{"SELECT * FROM t WHERE k=1", "select *  from t where k = 2", "SELECT * FROM t WHERE k = ?", "select * from t where k='x';"},
		{"INSERT INTO t (a, b) VALUES (1, [1,2,3])", "INSERT INTO t(a,b) VALUES (?, ['x'])", "INSERT INTO t (a, b) VALUES (?, ?)"},
		{"SELECT * FROM t WHERE k IN (1)", "SELECT * FROM t WHERE k IN (1, 2, 3, 4)", "SELECT * FROM t WHERE k IN ()"},
	}
	for _, group := range same {
		want := Fingerprint(group[0])
		for _, s := range group[1:] {
			if got := Fingerprint(s); got != want {
				t.Errorf("Fingerprint(%q) = %q, want %q (same class as %q)", s, got, want, group[0])
			}
		}
	}
	different := [][2]string{
		{"SELECT * FROM t WHERE k = 1", "SELECT * FROM u WHERE k = 1"},
		{"SELECT a FROM t", "SELECT b FROM t"},
		{"SELECT * FROM t WHERE k = ?", "SELECT * FROM t WHERE k = :k"},
		{"SELECT * FROM t WHERE k IN ?", "SELECT * FROM t WHERE k IN (?)"},
	}
	for _, d := range different {
		if Fingerprint(d[0]) == Fingerprint(d[1]) {
			t.Errorf("Fingerprint(%q) == Fingerprint(%q) = %q, want different", d[0], d[1], Fingerprint(d[0]))
		}
	}
}
