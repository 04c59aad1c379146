package gohbase

// dohyo patch: tests of the fork's own helpers (DOHYO-PATCHES.md), run by
// dohyo's `make test` (go test github.com/tsuna/gohbase/...).

import (
	"bytes"
	"testing"

	"github.com/tsuna/gohbase/region"
)

// TestIsFullyQualifiedTable: the in-place comparison answers as comparing
// with fullyQualifiedTable does, for tables in the default namespace and
// in others, and for names that differ only around the separator.
func TestIsFullyQualifiedTable(t *testing.T) {
	regions := []*struct{ ns, table string }{
		{"", "t"}, {"ns", "t"}, {"dohyo", "spd_ks_tbl"}, {"a", "b:c"}, {"a:b", "c"},
	}
	tables := []string{"t", "ns:t", "ns.t", "dohyo:spd_ks_tbl", "a:b:c", "ns:", ":t", "nst", "ns:tt", "dohyo:spd_ks_tb", ""}
	for _, r := range regions {
		var ns []byte
		if r.ns != "" {
			ns = []byte(r.ns)
		}
		reg := region.NewInfo(0, ns, []byte(r.table), []byte(r.table+",,1.x."), nil, nil)
		for _, tb := range tables {
			want := bytes.Equal(fullyQualifiedTable(reg), []byte(tb))
			if got := isFullyQualifiedTable(reg, []byte(tb)); got != want {
				t.Errorf("region %s:%s, table %q: %v, want %v", r.ns, r.table, tb, got, want)
			}
		}
	}
}

// TestAppendRegionSearchKey: the appending form writes createRegionSearchKey's
// key after what the buffer holds.
func TestAppendRegionSearchKey(t *testing.T) {
	want := createRegionSearchKey([]byte("ns:t"), []byte("row"))
	if got := appendRegionSearchKey([]byte("xy"), []byte("ns:t"), []byte("row")); !bytes.Equal(got, append([]byte("xy"), want...)) {
		t.Fatalf("got %q, want xy%q", got, want)
	}
}
