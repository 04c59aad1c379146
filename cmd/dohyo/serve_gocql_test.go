package main

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

// gocqlSession connects gocql to addr with a protocol version (0 = negotiate)
// and an optional compressor.
func gocqlSession(t *testing.T, addr string, proto int, comp gocql.Compressor, mods ...func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(addr)
	c.ProtoVersion = proto
	c.Compressor = comp
	c.Timeout = 10 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.One
	for _, m := range mods {
		m(c)
	}
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("gocql connect (proto %d): %v", proto, err)
	}
	t.Cleanup(s.Close)
	return s
}

func mustExec(t *testing.T, s *gocql.Session, q string, args ...any) {
	t.Helper()
	if err := s.Query(q, args...).Exec(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func TestServeGocql(t *testing.T) {
	for name, backend := range clientBackends(t, "g_negotiated", "g_v3", "g_v4", "g_v4_snappy") {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			for _, tc := range []struct {
				name  string
				proto int
				comp  gocql.Compressor
			}{
				{"negotiated", 0, nil},
				{"v3", 3, nil},
				{"v4", 4, nil},
				{"v4-snappy", 4, gocql.SnappyCompressor{}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					s := gocqlSession(t, p.CQLAddr, tc.proto, tc.comp)
					ks := "g_" + strings.ReplaceAll(tc.name, "-", "_")
					mustExec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
					mustExec(t, s, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
					mustExec(t, s, "INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", 1, "one")
					mustExec(t, s, "INSERT INTO "+ks+".kv (k, v) VALUES (2, 'two')")
					var v string
					if err := s.Query("SELECT v FROM "+ks+".kv WHERE k = ?", 1).Scan(&v); err != nil || v != "one" {
						t.Fatalf("prepared read: %q, %v", v, err)
					}
					if err := s.Query("SELECT v FROM " + ks + ".kv WHERE k = 2").Scan(&v); err != nil || v != "two" {
						t.Fatalf("unprepared read: %q, %v", v, err)
					}
				})
			}
		})
	}
}

func TestServeGocqlTypesRoundTrip(t *testing.T) {
	for name, backend := range clientBackends(t, "types") {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			s := gocqlSession(t, p.CQLAddr, 4, nil)
			mustExec(t, s, "CREATE KEYSPACE types WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, s, `CREATE TABLE types.all_types (k int PRIMARY KEY,
				a ascii, b bigint, bl blob, bo boolean, d date, de decimal, do double, du duration,
				f float, i inet, s smallint, t text, ti time, ts timestamp, tu timeuuid, tiny tinyint,
				u uuid, vi varint, l list<int>, st set<text>, m map<text, int>, tup tuple<int, text>)`)
			ts := time.Date(2024, 2, 29, 12, 34, 56, 789e6, time.UTC)
			u, _ := gocql.ParseUUID("123e4567-e89b-12d3-a456-426614174000")
			tu := gocql.UUIDFromTime(ts)
			vi, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
			want := map[string]any{
				"k": 1, "a": "ascii", "b": int64(math.MinInt64), "bl": []byte{0, 1, 0xff}, "bo": true,
				"d": time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC), "de": inf.NewDec(-31415, 4), "do": math.Inf(-1),
				"du": gocql.Duration{Months: 1, Days: 2, Nanoseconds: 3}, "f": float32(1.5),
				"i": net.ParseIP("::1"), "s": int16(-32768), "t": "héllo ✓", "ti": 13*time.Hour + 5*time.Nanosecond,
				"ts": ts, "tu": tu, "tiny": int8(-128), "u": u, "vi": vi,
				"l": []int{3, 1, 3}, "st": []string{"a", "b"}, "m": map[string]int{"x": 1, "y": 2},
				"tup": []any{7, "seven"},
			}
			cols := []string{"k", "a", "b", "bl", "bo", "d", "de", "do", "du", "f", "i", "s", "t", "ti", "ts", "tu", "tiny", "u", "vi", "l", "st", "m"}
			args := make([]any, len(cols))
			for i, c := range cols {
				args[i] = want[c]
			}
			ph := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
			// Prepared (bound) insert of key 1, literal insert of key 2 via the prepared values read back.
			mustExec(t, s, fmt.Sprintf("INSERT INTO types.all_types (%s, tup) VALUES (%s, (?, ?))", strings.Join(cols, ", "), ph), append(args, 7, "seven")...)
			got := map[string]any{}
			if err := s.Query("SELECT * FROM types.all_types WHERE k = 1").MapScan(got); err != nil {
				t.Fatal(err)
			}
			check := func(name string, g, w any) {
				t.Helper()
				switch wv := w.(type) {
				case *inf.Dec:
					if gd, ok := g.(*inf.Dec); !ok || gd.Cmp(wv) != 0 {
						t.Errorf("%s = %v, want %v", name, g, w)
					}
				case *big.Int:
					if gb, ok := g.(*big.Int); !ok || gb.Cmp(wv) != 0 {
						t.Errorf("%s = %v, want %v", name, g, w)
					}
				case net.IP:
					if gi := net.ParseIP(fmt.Sprint(g)); gi == nil || !gi.Equal(wv) {
						t.Errorf("%s = %v (%T), want %v", name, g, g, w)
					}
				case time.Time:
					if gt, ok := g.(time.Time); !ok || !gt.Equal(wv) {
						t.Errorf("%s = %v, want %v", name, g, w)
					}
				default:
					if !reflect.DeepEqual(g, w) {
						t.Errorf("%s = %#v, want %#v", name, g, w)
					}
				}
			}
			for _, c := range cols {
				check(c, got[c], want[c])
			}
			if !reflect.DeepEqual(got["tup"], []any{7, "seven"}) {
				// gocql reads tuples into per-component columns when map-scanning.
				if got["tup[0]"] != 7 || got["tup[1]"] != "seven" {
					t.Errorf("tuple = %#v / %#v %#v", got["tup"], got["tup[0]"], got["tup[1]"])
				}
			}
			// Unprepared literal forms of the same values must read back identically.
			mustExec(t, s, `INSERT INTO types.all_types (k, a, b, bl, bo, d, de, do, du, f, i, s, t, ti, ts, tu, tiny, u, vi, l, st, m, tup)
				VALUES (2, 'ascii', -9223372036854775808, 0x0001ff, true, '1969-07-20', -3.1415, -Infinity, 1mo2d3ns, 1.5,
				'::1', -32768, 'héllo ✓', '13:00:00.000000005', '2024-02-29 12:34:56.789+0000', `+tu.String()+`, -128,
				123e4567-e89b-12d3-a456-426614174000, -123456789012345678901234567890, [3, 1, 3], {'b', 'a'},
				{'y': 2, 'x': 1}, (7, 'seven'))`)
			got2 := map[string]any{}
			if err := s.Query("SELECT * FROM types.all_types WHERE k = 2").MapScan(got2); err != nil {
				t.Fatal(err)
			}
			for _, c := range cols[1:] {
				check(c+" (literal)", got2[c], want[c])
			}
		})
	}
}

func TestServeGocqlPagingOrderingAndLWT(t *testing.T) {
	for name, backend := range clientBackends(t, "app") {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			s := gocqlSession(t, p.CQLAddr, 0, nil)
			mustExec(t, s, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, s, "CREATE TABLE app.events (p int, c int, v text, PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)")

			// 10,000 rows in one partition, written in unlogged batches of 100.
			for b := 0; b < 100; b++ {
				batch := s.NewBatch(gocql.UnloggedBatch)
				for i := 0; i < 100; i++ {
					batch.Query("INSERT INTO app.events (p, c, v) VALUES (?, ?, ?)", 1, b*100+i, fmt.Sprint("v", b*100+i))
				}
				if err := s.ExecuteBatch(batch); err != nil {
					t.Fatal(err)
				}
			}
			iter := s.Query("SELECT c FROM app.events WHERE p = ?", 1).PageSize(37).Iter()
			n, prev, pages := 0, 10000, 0
			var c int
			for iter.Scan(&c) {
				if c != prev-1 {
					t.Fatalf("row %d: c = %d after %d (DESC clustering order broken)", n, c, prev)
				}
				prev = c
				n++
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			_ = pages
			if n != 10000 {
				t.Fatalf("paged %d rows, want 10000", n)
			}

			// Slices and IN come back in CQL order.
			var got []int
			it := s.Query("SELECT c FROM app.events WHERE p = 1 AND c >= 10 AND c < 15 ORDER BY c ASC").Iter()
			for it.Scan(&c) {
				got = append(got, c)
			}
			if err := it.Close(); err != nil || !reflect.DeepEqual(got, []int{10, 11, 12, 13, 14}) {
				t.Fatalf("ascending slice = %v, %v", got, err)
			}
			got = nil
			it = s.Query("SELECT c FROM app.events WHERE p = 1 AND c IN (5, 3, 9)").Iter()
			for it.Scan(&c) {
				got = append(got, c)
			}
			if err := it.Close(); err != nil || !reflect.DeepEqual(got, []int{9, 5, 3}) {
				t.Fatalf("IN on DESC clustering = %v, %v", got, err)
			}

			// TTL and USING TIMESTAMP.
			mustExec(t, s, "INSERT INTO app.events (p, c, v) VALUES (2, 1, 'old') USING TIMESTAMP 1000")
			mustExec(t, s, "INSERT INTO app.events (p, c, v) VALUES (2, 1, 'older') USING TIMESTAMP 999")
			var v string
			var wt int64
			if err := s.Query("SELECT v, WRITETIME(v) FROM app.events WHERE p = 2 AND c = 1").Scan(&v, &wt); err != nil || v != "old" || wt != 1000 {
				t.Fatalf("last write wins: v=%q writetime=%d err=%v", v, wt, err)
			}
			mustExec(t, s, "INSERT INTO app.events (p, c, v) VALUES (3, 1, 'ttl') USING TTL 500")
			var ttl int
			if err := s.Query("SELECT TTL(v) FROM app.events WHERE p = 3 AND c = 1").Scan(&ttl); err != nil || ttl <= 0 || ttl > 500 {
				t.Fatalf("TTL(v) = %d, %v", ttl, err)
			}

			// Lightweight transactions.
			m := map[string]any{}
			applied, err := s.Query("INSERT INTO app.events (p, c, v) VALUES (4, 1, 'first') IF NOT EXISTS").MapScanCAS(m)
			if err != nil || !applied {
				t.Fatalf("first IF NOT EXISTS: applied=%v err=%v", applied, err)
			}
			m = map[string]any{}
			applied, err = s.Query("INSERT INTO app.events (p, c, v) VALUES (4, 1, 'second') IF NOT EXISTS").MapScanCAS(m)
			if err != nil || applied || m["v"] != "first" {
				t.Fatalf("second IF NOT EXISTS: applied=%v current=%v err=%v", applied, m, err)
			}
			applied, err = s.Query("UPDATE app.events SET v = 'third' WHERE p = 4 AND c = 1 IF v = 'first'").ScanCAS()
			if err != nil || !applied {
				t.Fatalf("conditional update: applied=%v err=%v", applied, err)
			}
		})
	}
}

func TestServeGocqlErrors(t *testing.T) {
	for name, backend := range clientBackends(t, "errs") {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			s := gocqlSession(t, p.CQLAddr, 0, nil)
			mustExec(t, s, "CREATE KEYSPACE errs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, s, "CREATE TABLE errs.t (k int PRIMARY KEY, v text)")

			code := func(err error) int {
				var re gocql.RequestError
				if errors.As(err, &re) {
					return re.Code()
				}
				return -1
			}
			err := s.Query("SELEC * FROM errs.t").Exec()
			if code(err) != gocql.ErrCodeSyntax {
				t.Errorf("bad syntax: got %T %v, want a SyntaxError (0x2000)", err, err)
			}
			err = s.Query("SELECT nope FROM errs.t WHERE k = 1").Exec()
			if code(err) != gocql.ErrCodeInvalid || !strings.Contains(err.Error(), "nope") {
				t.Errorf("unknown column: got %T %v, want Invalid naming the column", err, err)
			}
			err = s.Query("CREATE KEYSPACE errs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec()
			var ae *gocql.RequestErrAlreadyExists
			if !errors.As(err, &ae) || ae.Keyspace != "errs" {
				t.Errorf("existing keyspace: got %T %v, want RequestErrAlreadyExists for errs", err, err)
			}
			err = s.Query("INSERT INTO errs.t (k, v) VALUES ('x', 'y')").Exec()
			if code(err) != gocql.ErrCodeInvalid {
				t.Errorf("type mismatch: got %T %v, want Invalid", err, err)
			}
		})
	}
}
