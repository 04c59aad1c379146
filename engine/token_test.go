package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

const (
	minTok = math.MinInt64
	maxTok = math.MaxInt64
)

func TestTokenSpanRingRange(t *testing.T) {
	lower := func(v int64, inc bool) tokenSpan { return tokenSpan{hasLo: true, lo: v, loInc: inc} }
	upper := func(v int64, inc bool) tokenSpan { return tokenSpan{hasHi: true, hi: v, hiInc: inc} }
	both := func(lo int64, loInc bool, hi int64, hiInc bool) tokenSpan {
		return tokenSpan{hasLo: true, lo: lo, loInc: loInc, hasHi: true, hi: hi, hiInc: hiInc}
	}
	tests := []struct {
		name   string
		span   tokenSpan
		lo, hi int64
		ok     bool
	}{
		{"unrestricted", tokenSpan{}, minTok, maxTok, true},
		{"> 5", lower(5, false), 6, maxTok, true},
		{">= 5", lower(5, true), 5, maxTok, true},
		{"< 5", upper(5, false), minTok, 4, true},
		{"<= 5", upper(5, true), minTok, 5, true},
		{"= 5", both(5, true, 5, true), 5, 5, true},
		{"> max", lower(maxTok, false), 0, 0, false},
		{">= max", lower(maxTok, true), maxTok, maxTok, true},
		{"> min", lower(minTok, false), minTok + 1, maxTok, true},
		// The minimum token as an end bound is the end of the ring.
		{"< min", upper(minTok, false), minTok, maxTok, true},
		{"<= min", upper(minTok, true), minTok, maxTok, true},
		{"= min", both(minTok, true, minTok, true), minTok, maxTok, true},
		{"> 5 and < min", both(5, false, minTok, false), 6, maxTok, true},
		{"> 5 and < 3", both(5, false, 3, false), 0, 0, false},
		{">= 5 and < 5", both(5, true, 5, false), 0, 0, false},
		{"> 5 and <= 5", both(5, false, 5, true), 0, 0, false},
		{">= 5 and <= 5", both(5, true, 5, true), 5, 5, true},
		{"> 5 and < 6", both(5, false, 6, false), 0, 0, false},
		{">= min and <= 7", both(minTok, true, 7, true), minTok, 7, true},
		{"> min and < 7", both(minTok, false, 7, false), minTok + 1, 6, true},
	}
	for _, tt := range tests {
		lo, hi, ok := tt.span.ringRange()
		if ok != tt.ok || (ok && (lo != tt.lo || hi != tt.hi)) {
			t.Errorf("%s: got [%d, %d] %v, want [%d, %d] %v", tt.name, lo, hi, ok, tt.lo, tt.hi, tt.ok)
		}
	}
}

func TestTokenSpanContains(t *testing.T) {
	both := func(lo int64, loInc bool, hi int64, hiInc bool) tokenSpan {
		return tokenSpan{hasLo: true, lo: lo, loInc: loInc, hasHi: true, hi: hi, hiInc: hiInc}
	}
	tests := []struct {
		name string
		span tokenSpan
		in   []int64
		out  []int64
	}{
		{"> 5", tokenSpan{hasLo: true, lo: 5}, []int64{6, maxTok}, []int64{5, minTok}},
		{"<= 5", tokenSpan{hasHi: true, hi: 5, hiInc: true}, []int64{5, minTok + 1}, []int64{6}},
		{"= 5", both(5, true, 5, true), []int64{5}, []int64{4, 6}},
		// No special minimum: plain comparisons.
		{"<= min", tokenSpan{hasHi: true, hi: minTok, hiInc: true}, []int64{minTok}, []int64{minTok + 1, 0}},
		{"= min", both(minTok, true, minTok, true), nil, []int64{0, minTok + 1}},
		{"> 3 and < 10", both(3, false, 10, false), []int64{4, 9}, []int64{3, 10}},
		// Crossing bounds wrap around the ring.
		{"> 10 and < 3", both(10, false, 3, false), []int64{2, 11, minTok + 1, maxTok}, []int64{3, 5, 10}},
		{">= 5 and < 5", both(5, true, 5, false), nil, []int64{5, 4, 6}},
	}
	for _, tt := range tests {
		for _, v := range tt.in {
			if !tt.span.contains(v) {
				t.Errorf("%s: contains(%d) = false, want true", tt.name, v)
			}
		}
		for _, v := range tt.out {
			if tt.span.contains(v) {
				t.Errorf("%s: contains(%d) = true, want false", tt.name, v)
			}
		}
	}
}

// tokRow is a row of `SELECT token(k), k, c FROM t`.
type tokRow struct {
	tok  int64
	line string
}

func parseTokRows(t *testing.T, lines []string) []tokRow {
	t.Helper()
	out := make([]tokRow, len(lines))
	for i, l := range lines {
		tok, err := strconv.ParseInt(strings.Split(l, " | ")[0], 10, 64)
		if err != nil {
			t.Fatalf("row %q: %v", l, err)
		}
		out[i] = tokRow{tok, l}
	}
	return out
}

// TestTokenScanSalted checks token range scans against a filter of the
// full scan, on unsalted and salted tables: rows come in token order (the
// salt buckets merged back), bounds are honoured, LIMIT and paging cut the
// same rows.
func TestTokenScanSalted(t *testing.T) {
	for _, salt := range []int{0, 3, 16} {
		t.Run(fmt.Sprintf("salt%d", salt), func(t *testing.T) {
			h := newHarnessOpts(t, Options{Salt: salt})
			h.exec("CREATE TABLE t (k text, c int, v int, PRIMARY KEY (k, c))")
			for i := 0; i < 60; i++ {
				for c := 0; c < 1+i%3; c++ {
					h.exec("INSERT INTO t (k, c, v) VALUES (?, ?, ?)", fmt.Sprintf("key%d", i), int32(c), int32(i))
				}
			}
			all := parseTokRows(t, h.rows("SELECT token(k), k, c FROM t"))
			if len(all) != 120 {
				t.Fatalf("full scan: got %d rows, want 120", len(all))
			}
			for i := 1; i < len(all); i++ {
				if all[i].tok < all[i-1].tok {
					t.Fatalf("full scan out of token order at row %d: %q after %q", i, all[i].line, all[i-1].line)
				}
			}
			rng := rand.New(rand.NewPCG(1, uint64(salt)))
			pick := func() int64 {
				if rng.IntN(2) == 0 {
					return all[rng.IntN(len(all))].tok // on a row's token
				}
				return int64(rng.Uint64())
			}
			for n := 0; n < 40; n++ {
				lo, hi := pick(), pick()
				var want []string
				for _, r := range all {
					if lo < r.tok && r.tok <= hi {
						want = append(want, r.line)
					}
				}
				q := fmt.Sprintf("SELECT token(k), k, c FROM t WHERE token(k) > %d AND token(k) <= %d", lo, hi)
				if got := h.rows(q); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s:\ngot  %q\nwant %q", q, got, want)
				}
				if got := flatten(h.pages(q, 4)); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s, paged by 4:\ngot  %q\nwant %q", q, got, want)
				}
				limited := want[:min(len(want), 5)]
				if got := h.rows(q + " LIMIT 5"); strings.Join(got, "\n") != strings.Join(limited, "\n") {
					t.Fatalf("%s LIMIT 5:\ngot  %q\nwant %q", q, got, limited)
				}
			}
			// token(?) of a key starts exactly at that key's partition.
			first := all[37]
			k := strings.Trim(strings.Split(first.line, " | ")[1], "'")
			got := h.rows("SELECT token(k), k, c FROM t WHERE token(k) >= token(?) LIMIT 2", k)
			if len(got) == 0 || got[0] != all[firstOfToken(all, first.tok)].line {
				t.Errorf("token(k) >= token(%q): got %q, want to start at %q", k, got, all[firstOfToken(all, first.tok)].line)
			}
		})
	}
}

func firstOfToken(rows []tokRow, tok int64) int {
	for i, r := range rows {
		if r.tok == tok {
			return i
		}
	}
	return -1
}
