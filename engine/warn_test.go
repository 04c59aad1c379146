package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestJavaHashSetOrder: the table lists of Cassandra 5.0.9's batch
// warnings (HashSet<String>.toString), as observed on the server.
func TestJavaHashSetOrder(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"pw.t", "pw.t2"}, []string{"pw.t2", "pw.t"}},
		{[]string{"pw.b", "pw.b3"}, []string{"pw.b3", "pw.b"}},
		{[]string{"pw.b", "pw.b4"}, []string{"pw.b4", "pw.b"}},
		{[]string{"pw.b", "pw.b2"}, []string{"pw.b2", "pw.b"}},
		{[]string{"pw.b2", "pw.b"}, []string{"pw.b2", "pw.b"}},
	} {
		if got := javaHashSetOrder(c.in); !slices.Equal(got, c.want) {
			t.Errorf("javaHashSetOrder(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Java's "pw.t".hashCode() and a name beyond the BMP (a surrogate pair).
	if got := int32(javaStringHash("pw.t")); got != 3452493 {
		t.Errorf(`hash("pw.t") = %d, want 3452493`, got)
	}
	if got := int32(javaStringHash("😀")); got != 1772899 {
		t.Errorf(`hash("😀") = %d, want 1772899`, got)
	}
}

func TestQuoteIfNeeded(t *testing.T) {
	for in, want := range map[string]string{"ks": "ks", "t_1": "t_1", "MyTable": `"MyTable"`, "1t": `"1t"`, `a"b`: `"a""b"`} {
		if got := quoteIfNeeded(in); got != want {
			t.Errorf("quoteIfNeeded(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestBatchThresholds: the thresholds are settings; negative turns a
// check off, and the failure threshold refuses the batch before any of it
// is written.
func TestBatchThresholds(t *testing.T) {
	batch := "BEGIN UNLOGGED BATCH INSERT INTO t (k, v) VALUES (1, 'aaaa'); INSERT INTO t (k, v) VALUES (2, 'bbbb'); APPLY BATCH"
	// Two partitions: 2 * (29 + 21 + 20 + 4) = 148 bytes.
	for _, c := range []struct {
		name     string
		th       Thresholds
		warnings []string
		err      string
	}{
		{"defaults", DefaultThresholds(), nil, ""},
		{"warn", Thresholds{BatchSizeWarn: 100, BatchSizeFail: -1, UnloggedBatchPartitions: 1}, []string{
			"Batch for [ks.t] is of size 148, exceeding specified threshold of 100 by 48.",
			"Unlogged batch covering 2 partitions detected against table [ks.t]. You should use a logged batch for atomicity, or asynchronous writes for performance.",
		}, ""},
		{"at the threshold", Thresholds{BatchSizeWarn: 148, BatchSizeFail: 148, UnloggedBatchPartitions: 2}, nil, ""},
		{"fail", Thresholds{BatchSizeWarn: 100, BatchSizeFail: 147, UnloggedBatchPartitions: -1}, nil, "Batch too large"},
		{"fail without warn", Thresholds{BatchSizeWarn: -1, BatchSizeFail: 147, UnloggedBatchPartitions: -1}, nil, "Batch too large"},
		{"off", Thresholds{BatchSizeWarn: -1, BatchSizeFail: -1, UnloggedBatchPartitions: -1}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			th := c.th
			h := newHarnessOpts(t, Options{Thresholds: &th})
			h.exec("CREATE TABLE t (k int PRIMARY KEY, v text)")
			res, err := h.run(batch)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if rows := h.exec("SELECT k FROM t").Rows; len(rows) != 0 {
					t.Fatalf("a refused batch wrote %d rows", len(rows))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Warnings, c.warnings) {
				t.Fatalf("warnings = %q, want %q", res.Warnings, c.warnings)
			}
		})
	}
}

// TestWarningsAreNotShared: a plan's warnings reach every execution and
// a statement without warnings has none.
func TestWarningsAreNotShared(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	h.exec("INSERT INTO t (k, v) VALUES (1, 1)")
	for range 2 {
		if w := h.exec("SELECT count(*) FROM t").Warnings; !slices.Equal(w, []string{warnAggregateNoKey}) {
			t.Fatalf("warnings = %q", w)
		}
		if w := h.exec("SELECT count(*) FROM t WHERE k = 1").Warnings; w != nil {
			t.Fatalf("warnings = %q", w)
		}
	}
}
