package workload

import (
	"math"
	"math/rand/v2"
)

// Zipfian constants of YCSB's generators.
const (
	zipfianConstant = 0.99
	// scrambledItems and scrambledZetan are ScrambledZipfianGenerator's
	// item count and its precomputed zeta(10^10, 0.99).
	scrambledItems = 10_000_000_000
	scrambledZetan = 26.46902820178302
)

// fnvhash64 is YCSB's Utils.fnvhash64: FNV-1a over the value's 8 bytes,
// low byte first, made non-negative.
func fnvhash64(v int64) int64 {
	h := int64(-3750763034362895579) // 0xCBF29CE484222325
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= 1099511628211
		v >>= 8
	}
	if h < 0 {
		h = -h
	}
	return h
}

// zipfian is YCSB's ZipfianGenerator (Gray et al., "Quickly generating
// billion-record synthetic databases"): items base..base+items-1, item 0
// the most popular. nextLong(n) grows the item count incrementally as
// YCSB does (eta keeps the constructor's item count, as in YCSB).
type zipfian struct {
	items, base                int64
	theta, zeta2, alpha, zetan float64
	eta                        float64
	countForZeta               int64
}

func zeta(from, n int64, theta, initial float64) float64 {
	sum := initial
	for i := from; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// newZipfian covers min..max; zetan 0 computes it.
func newZipfian(min, max int64, zetan float64) *zipfian {
	z := &zipfian{items: max - min + 1, base: min, theta: zipfianConstant}
	z.zeta2 = zeta(0, 2, z.theta, 0)
	z.alpha = 1 / (1 - z.theta)
	if zetan == 0 {
		zetan = zeta(0, z.items, z.theta, 0)
	}
	z.zetan, z.countForZeta = zetan, z.items
	z.eta = (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2/z.zetan)
	return z
}

func (z *zipfian) next(r *rand.Rand) int64 { return z.nextN(r, z.items) }

// nextN draws from n items (n may grow between calls: the latest
// distribution).
func (z *zipfian) nextN(r *rand.Rand, n int64) int64 {
	z.grow(n)
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	return z.base + int64(float64(n)*math.Pow(z.eta*u-z.eta+1, z.alpha))
}

// grow extends zeta to n items, incrementally, as YCSB does.
func (z *zipfian) grow(n int64) {
	if n > z.countForZeta {
		z.zetan = zeta(z.countForZeta, n, z.theta, z.zetan)
		z.countForZeta = n
		z.eta = (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2/z.zetan)
	}
}

// cdf is P(next <= k) for n items, from the generator's definition (the
// tests' expected distribution): 0 below 1/zetan, 1 below
// (1+0.5^theta)/zetan, else floor(n·(eta·u−eta+1)^alpha).
func (z *zipfian) cdf(k, n int64) float64 {
	if k < 0 {
		return 0
	}
	u0, u1 := 1/z.zetan, (1+math.Pow(0.5, z.theta))/z.zetan
	p := math.Min(u0, 1)
	if k >= 1 {
		p = math.Min(u1, 1)
	}
	// u >= u1 gives k' = floor(n g(u)) <= k iff u < G(k).
	g := (math.Pow(float64(k+1)/float64(n), 1-z.theta)-1)/z.eta + 1
	if g > u1 {
		p += math.Min(g, 1) - u1
	}
	return math.Min(p, 1)
}

// scrambledZipfian is YCSB's ScrambledZipfianGenerator: a zipfian draw
// over 10^10 items, hashed onto min..max, so popular items are spread.
type scrambledZipfian struct {
	min, count int64
	z          *zipfian
}

func newScrambledZipfian(min, max int64) *scrambledZipfian {
	return &scrambledZipfian{min: min, count: max - min + 1, z: newZipfian(0, scrambledItems-1, scrambledZetan)}
}

func (s *scrambledZipfian) next(r *rand.Rand) int64 {
	return s.min + fnvhash64(s.z.next(r))%s.count
}
