package java

import (
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// BenchmarkLoop measures the interpreter on a counting loop (about three
// steps per iteration: the loop test, the statement, the update).
func BenchmarkLoop(b *testing.B) {
	f, err := Compile("ks.f", []Param{{"n", cql.Scalar(cql.KindInt)}}, cql.Scalar(cql.KindBigint),
		"long s = 0; for (int i = 0; i < n; i++) { s += i * 2; } return s;", true)
	if err != nil {
		b.Fatal(err)
	}
	arg := [][]byte{{0, 0, 0x27, 0x10}} // 10000
	b.ResetTimer()
	for range b.N {
		if _, err := f.Call(arg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBudget is a hostile `while (true) {}`: how long a call takes
// to fail with the default step budget.
func BenchmarkBudget(b *testing.B) {
	f, err := Compile("ks.f", []Param{{"n", cql.Scalar(cql.KindInt)}}, cql.Scalar(cql.KindInt), "while (true) { n++; }", true)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if _, err := f.Call([][]byte{{0, 0, 0, 1}}); err == nil {
			b.Fatal("no budget error")
		}
	}
}
