package workload

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

// Significance of every chi-square test here: alpha = 0.001 (z = 3.0902),
// with fixed seeds, so a pass or a failure is reproducible.
const zAlpha = 3.0902

// chiCritical is the chi-square critical value for df degrees of freedom
// at alpha (Wilson-Hilferty approximation, within 1% for df >= 3).
func chiCritical(df int) float64 {
	k := float64(df)
	return k * math.Pow(1-2/(9*k)+zAlpha*math.Sqrt(2/(9*k)), 3)
}

// chiStat is the chi-square statistic of observed counts against
// expected probabilities, with its degrees of freedom; an error when a
// bin expects too few draws or has draws the definition excludes.
func chiStat(obs []int64, p []float64) (x float64, df int, err error) {
	var n int64
	for _, o := range obs {
		n += o
	}
	df = -1
	for i := range obs {
		e := p[i] * float64(n)
		if e == 0 {
			if obs[i] != 0 {
				return 0, 0, fmt.Errorf("bin %d has %d draws where the definition gives none", i, obs[i])
			}
			continue
		}
		if e < 5 {
			return 0, 0, fmt.Errorf("bin %d expects %.1f draws: merge bins", i, e)
		}
		x += (float64(obs[i]) - e) * (float64(obs[i]) - e) / e
		df++
	}
	return x, df, nil
}

// chiSquare fails t unless obs fit the expected probabilities p.
func chiSquare(t *testing.T, what string, obs []int64, p []float64) {
	t.Helper()
	x, df, err := chiStat(obs, p)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if crit := chiCritical(df); x > crit {
		t.Fatalf("%s: chi-square %.1f > %.1f (df %d, alpha 0.001): not the defined distribution", what, x, crit, df)
	}
	t.Logf("%s: chi-square %.1f <= %.1f (df %d)", what, x, chiCritical(df), df)
}

// TestChiSquareRejects is the negative control: the same check, with the
// same sample sizes as the tests above, rejects draws from a distribution
// slightly off the definition.
func TestChiSquareRejects(t *testing.T) {
	r := newGenerator(&YCSB{Workload: "c", Records: 1, Seed: 9}).r
	rejects := func(what string, obs []int64, p []float64) {
		t.Helper()
		x, df, err := chiStat(obs, p)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if x <= chiCritical(df) {
			t.Errorf("%s: chi-square %.1f <= %.1f (df %d): the check does not see the difference", what, x, chiCritical(df), df)
		}
		t.Logf("%s: chi-square %.1f > %.1f (df %d): rejected", what, x, chiCritical(df), df)
	}
	// An operation mix of 52/48 tested against workload A's 50/50.
	mix := []int64{0, 0}
	for i := 0; i < 100000; i++ {
		if r.Float64() < 0.52 {
			mix[0]++
		} else {
			mix[1]++
		}
	}
	rejects("52/48 mix vs 50/50", mix, []float64{0.5, 0.5})
	// Keys 10% more likely in the first half, tested against uniform.
	keys := make([]int64, 20)
	for i := 0; i < 100000; i++ {
		k := r.IntN(1000)
		if k >= 500 && r.Float64() < 0.1 {
			k -= 500
		}
		keys[k/50]++
	}
	p := make([]float64, 20)
	for i := range p {
		p[i] = 1.0 / 20
	}
	rejects("skewed keys vs uniform", keys, p)
	// Zipfian with theta 0.95 tested against YCSB's 0.99.
	z := newZipfian(0, 999, 0)
	z.theta = 0.95
	z.zeta2, z.alpha = zeta(0, 2, z.theta, 0), 1/(1-z.theta)
	z.zetan = zeta(0, z.items, z.theta, 0)
	z.eta = (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2/z.zetan)
	obs, zp := zipfianBins(z, newZipfian(0, 999, 0), r, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 19, 49, 99, 199, 499, 999})
	rejects("zipfian theta 0.95 vs 0.99", obs, zp)
}

// zipfianBins draws 200,000 ranks from z into bins ending at edges, and
// gives each bin's probability under def (the definition tested against).
func zipfianBins(z, def *zipfian, r *rand.Rand, edges []int64) ([]int64, []float64) {
	obs := make([]int64, len(edges))
	for i := 0; i < 200000; i++ {
		v := z.next(r)
		for j, e := range edges {
			if v <= e {
				obs[j]++
				break
			}
		}
	}
	p := make([]float64, len(edges))
	prev := int64(-1)
	for j, e := range edges {
		p[j] = def.cdf(e, 1000) - def.cdf(prev, 1000)
		prev = e
	}
	return obs, p
}

func TestYCSBOperationMix(t *testing.T) {
	for _, w := range []string{"a", "b", "c", "d", "e", "f"} {
		y := &YCSB{Workload: w, Records: 1000, Operations: 100000, Seed: 1}
		if err := y.defaults(); err != nil {
			t.Fatal(err)
		}
		g := newGenerator(y)
		counts := map[string]int64{}
		for i := int64(0); i < y.Operations; i++ {
			counts[g.next().Kind]++
		}
		s := y.Spec()
		var obs []int64
		var p []float64
		for _, kw := range []struct {
			k string
			w float64
		}{{OpRead, s.Read}, {OpUpdate, s.Update}, {OpInsert, s.Insert}, {OpScan, s.Scan}, {OpRMW, s.RMW}} {
			if kw.w == 0 && counts[kw.k] != 0 {
				t.Fatalf("workload %s: %d %s, the definition has none", w, counts[kw.k], kw.k)
			}
			if kw.w > 0 {
				obs, p = append(obs, counts[kw.k]), append(p, kw.w)
			}
		}
		if len(obs) == 1 {
			if obs[0] != y.Operations {
				t.Fatalf("workload %s: %v", w, counts)
			}
			continue
		}
		chiSquare(t, "workload "+w+" operation mix", obs, p)
	}
}

func TestYCSBZipfianDefinition(t *testing.T) {
	z := newZipfian(0, 999, 0)
	r := newGenerator(&YCSB{Workload: "c", Records: 1, Seed: 2}).r
	edges := []int64{}
	for k := int64(0); k < 30; k++ {
		edges = append(edges, k)
	}
	edges = append(edges, 49, 99, 199, 499, 999)
	obs, p := zipfianBins(z, z, r, edges)
	chiSquare(t, "zipfian(1000) ranks", obs, p)
}

// Workload C's keys: ScrambledZipfianGenerator(0, records) with keys
// beyond the last record redrawn.
func TestYCSBScrambledZipfianKeys(t *testing.T) {
	const records, draws = 1000, 200000
	y := &YCSB{Workload: "c", Records: records, Operations: draws, Seed: 3}
	if err := y.defaults(); err != nil {
		t.Fatal(err)
	}
	g := newGenerator(y)
	obs := make([]int64, records)
	for i := 0; i < draws; i++ {
		obs[g.next().Keynum]++
	}
	// Expected: ranks below m exactly from the definition, the rest
	// (hashed over the items) spread evenly; item `records` is redrawn.
	const m = 2_000_000
	z, count := g.zipf.z, int64(records+1)
	p := make([]float64, count)
	prev := 0.0
	for k := int64(0); k < m; k++ {
		c := z.cdf(k, scrambledItems)
		p[fnvhash64(k)%count] += c - prev
		prev = c
	}
	for i := range p {
		p[i] += (1 - prev) / float64(count)
	}
	keep := 1 - p[records]
	for i := range p {
		p[i] /= keep
	}
	chiSquare(t, "workload c keys (scrambled zipfian)", obs, p[:records])
}

func TestYCSBUniformKeys(t *testing.T) {
	y := &YCSB{Workload: "a", Records: 1000, Operations: 100000, Distribution: "uniform", Seed: 4}
	if err := y.defaults(); err != nil {
		t.Fatal(err)
	}
	g := newGenerator(y)
	obs := make([]int64, 20)
	for i := int64(0); i < y.Operations; i++ {
		obs[g.next().Keynum/50]++
	}
	p := make([]float64, 20)
	for i := range p {
		p[i] = 1.0 / 20
	}
	chiSquare(t, "uniform keys", obs, p)
}

// Workload D reads the latest keys: last − zipfian(last+1).
func TestYCSBLatestKeys(t *testing.T) {
	y := &YCSB{Workload: "d", Records: 1000, Operations: 100000, Seed: 5}
	if err := y.defaults(); err != nil {
		t.Fatal(err)
	}
	g := newGenerator(y)
	ref := newZipfian(0, y.Records-1, 0)
	const bins = 12 // distances 0..10, then 11+
	obs := make([]int64, bins)
	p := make([]float64, bins)
	reads := 0.0
	for i := int64(0); i < y.Operations; i++ {
		op := g.next()
		if op.Kind != OpRead {
			continue
		}
		n := op.Latest + 1
		d := min(op.Latest-op.Keynum, bins-1)
		obs[d]++
		ref.grow(n)
		for b := int64(0); b < bins-1; b++ {
			p[b] += ref.cdf(b, n) - ref.cdf(b-1, n)
		}
		p[bins-1] += 1 - ref.cdf(bins-2, n)
		reads++
	}
	for i := range p {
		p[i] /= reads
	}
	chiSquare(t, "workload d distance from the latest insert", obs, p)
}

func TestYCSBKeysAndStatements(t *testing.T) {
	if got := KeyName(0); got != "user6284781860667377211" {
		t.Errorf("KeyName(0) = %s, want YCSB's user6284781860667377211 (fnvhash64)", got)
	}
	y := &YCSB{Workload: "f", Records: 50, Operations: 200, Seed: 6, FieldCount: 3, FieldLength: 8}
	var obs []*bindings.Observation
	if err := y.Generate(func(o *bindings.Observation) { obs = append(obs, o) }); err != nil {
		t.Fatal(err)
	}
	if obs[0].Query != "INSERT INTO usertable (y_id, field0, field1, field2) VALUES (?, ?, ?, ?)" || len(obs[0].Values[1].Bytes) != 8 {
		t.Fatalf("first statement %q", obs[0].Query)
	}
	rmw := 0
	for i, o := range obs[50:] {
		if o.Query == "SELECT * FROM usertable WHERE y_id = ?" && i+51 < len(obs) && obs[i+51].Session == o.Session &&
			string(obs[i+51].Values[1].Bytes) == string(o.Values[0].Bytes) {
			rmw++
		}
		if o.ResultKind != bindings.ResultVoid || o.Keyspace != "ycsb" || !o.Prepared {
			t.Fatalf("op %d: %+v", i, o)
		}
	}
	if rmw < 60 {
		t.Fatalf("%d read-modify-writes (read then update of the same key), want about 100", rmw)
	}
}

func TestWorkloadWriteCapture(t *testing.T) {
	dir := t.TempDir()
	y := &YCSB{Workload: "a", Records: 200, Operations: 1000, Seed: 7}
	n, err := Write(context.Background(), dir, "test", y)
	if err != nil || n != 1200 {
		t.Fatalf("wrote %d records (%v), want 1200", n, err)
	}
	m, err := capture.NewMerger(context.Background(), capture.MergeOptions{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if hs := m.Headers(); len(hs) == 0 || hs[0].SchemaDDL != y.SchemaDDL() || hs[0].Node != "workload-ycsb-a" {
		t.Fatalf("headers %+v", hs)
	}
	got := 0
	for {
		r, err := m.Next()
		if err != nil || r == nil {
			break
		}
		got++
	}
	if got != 1200 {
		t.Fatalf("read %d records back, want 1200", got)
	}
	s := &Sberbank{Records: 250, Operations: 10, Seed: 1}
	if n, err := Write(context.Background(), t.TempDir(), "test", s); err != nil || n != 260 {
		t.Fatalf("sberbank: %d records (%v), want 260", n, err)
	}
}
