package capture

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

func macOf(key string, v []byte) []byte {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(v)
	return m.Sum(nil)
}

func TestRedaction(t *testing.T) {
	const key = "s3cret"
	cfg := testConfig(t)
	cfg.RedactKey = key
	cfg.Redact = []RedactRule{
		{Column: "ks.users.email", Action: RedactDrop},
		{Column: "ks.users.ssn", Action: RedactHash},
		{Column: "ks.users.bio", Action: RedactLength},
		{Column: `*.*."Secret"`, Action: RedactDrop},
	}
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	v := func(s string) bindings.Value { return bindings.Value{Bytes: []byte(s)} }
	vals := func(ss ...string) []bindings.Value {
		var out []bindings.Value
		for _, s := range ss {
			out = append(out, v(s))
		}
		return out
	}
	type tc struct {
		name     string
		ks, q    string
		values   []bindings.Value
		names    []string
		want     []Value // expected values
		redacted bool    // query text replaced
		paging   []byte
	}
	id, name := []byte("id-1"), []byte("alice")
	cases := []tc{
		{name: "insert", ks: "ks", q: "INSERT INTO users (id, email, ssn, bio, name) VALUES (?, ?, ?, ?, ?)",
			values: vals("id-1", "a@b.c", "123-45-6789", "long biography", "alice"),
			want: []Value{{Bytes: id}, {Redacted: RedactDrop},
				{Bytes: macOf(key, []byte("123-45-6789")), Redacted: RedactHash},
				{Redacted: RedactLength, Len: 14}, {Bytes: name}}},
		{name: "update and where", ks: "other", q: "UPDATE ks.users SET email = ?, name = ? WHERE id = ? IF ssn = ?",
			values: vals("x@y", "alice", "id-1", "123"),
			want: []Value{{Redacted: RedactDrop}, {Bytes: name}, {Bytes: id},
				{Bytes: macOf(key, []byte("123")), Redacted: RedactHash}}},
		{name: "select in", ks: "ks", q: "SELECT * FROM users WHERE email IN (?, ?) AND bio = ? LIMIT ? ALLOW FILTERING",
			values: vals("a", "b", "cd", "\x00\x00\x00\x0a"),
			want: []Value{{Redacted: RedactDrop}, {Redacted: RedactDrop}, {Redacted: RedactLength, Len: 2},
				{Bytes: []byte("\x00\x00\x00\x0a")}},
			paging: []byte("state-with-key")},
		{name: "named values", ks: "ks", q: "SELECT * FROM users WHERE id = :id AND email = :mail ALLOW FILTERING",
			values: vals("a@b", "id-1"), names: []string{"mail", "id"},
			want: []Value{{Redacted: RedactDrop}, {Bytes: id}}},
		{name: "null stays null", ks: "ks", q: "UPDATE users SET email = ? WHERE id = ?",
			values: []bindings.Value{{}, {Unset: true}},
			want:   []Value{{}, {Unset: true}}},
		{name: "literal in text", ks: "ks", q: "INSERT INTO users (id, email) VALUES (?, 'a@b.c')",
			values: vals("id-1"), want: []Value{{Bytes: id}}, redacted: true},
		{name: "quoted column and wildcard", ks: "app", q: `UPDATE t SET "Secret" = ?, secret = ? WHERE k = ?`,
			values: vals("x", "y", "k"),
			want:   []Value{{Redacted: RedactDrop}, {Bytes: []byte("y")}, {Bytes: []byte("k")}}},
		{name: "collection elements", ks: "ks", q: "UPDATE users SET email = email + {?, ?} WHERE id = ?",
			values: vals("a", "b", "id-1"),
			want:   []Value{{Redacted: RedactDrop}, {Redacted: RedactDrop}, {Bytes: id}}},
		{name: "unparseable", ks: "ks", q: "FROB users WITH ?",
			values: vals("x"), want: []Value{{Redacted: RedactDrop}}, redacted: true},
		{name: "no rule applies", ks: "ks", q: "SELECT * FROM orders WHERE id = ?",
			values: vals("id-1"), want: []Value{{Bytes: id}}, paging: []byte("kept")},
	}
	for i, c := range cases {
		w.Observe(&bindings.Observation{Time: t0, Session: 1, Seq: uint64(i), Source: bindings.SourceCQL,
			Keyspace: c.ks, Query: c.q, Values: c.values, Names: c.names, PagingState: c.paging})
	}
	closeWriter(t, w)
	recs := readDirRecords(t, cfg.Dir)
	if len(recs) != len(cases) {
		t.Fatalf("%d records", len(recs))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := recs[i]
			if len(r.Values) != len(c.want) {
				t.Fatalf("values = %+v", r.Values)
			}
			for j, want := range c.want {
				got := r.Values[j]
				if got.Redacted != want.Redacted || got.Unset != want.Unset || got.Len != want.Len ||
					!bytes.Equal(got.Bytes, want.Bytes) || (got.Bytes == nil) != (want.Bytes == nil) {
					t.Errorf("value %d = %+v, want %+v", j, got, want)
				}
			}
			if r.QueryRedacted != c.redacted {
				t.Errorf("QueryRedacted = %v, want %v", r.QueryRedacted, c.redacted)
			}
			if c.redacted && (strings.Contains(r.Query, "a@b.c") || r.Query != cql.Fingerprint(c.q)) {
				t.Errorf("redacted query = %q", r.Query)
			}
			if !c.redacted && r.Query != c.q {
				t.Errorf("query = %q, want %q", r.Query, c.q)
			}
			if c.paging != nil {
				wantPS := c.name == "no rule applies"
				if !r.Paging || (r.PagingState != nil) != wantPS {
					t.Errorf("paging=%v state=%q: a redacted statement must not keep its paging state",
						r.Paging, r.PagingState)
				}
			}
		})
	}
}

func TestSplitIdentPath(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: "Ks.Users.Email", want: []string{"ks", "users", "email"}},
		{in: `ks."My.Table"."Col"`, want: []string{"ks", "My.Table", "Col"}},
		{in: `*.*.c`, want: []string{"", "", "c"}},
		{in: `ks..c`, bad: true},
		{in: `ks."unterminated`, bad: true},
		{in: `ks."a"b.c`, bad: true},
	}
	for _, c := range cases {
		got, err := splitIdentPath(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("splitIdentPath(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("splitIdentPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
