package engine

import (
	"bytes"
	"math"

	"github.com/dohyo/dohyo/bindings"
)

// KeyRange is a half-open row-key range [Start, Stop), usable as a ScanRange.
// A nil Start is the beginning of the table, a nil Stop its end.
type KeyRange struct {
	Start, Stop []byte
}

// Bound is one side of a clustering slice at the CQL level: the values of
// consecutive clustering columns (starting after the slice's equality
// prefix) compared as a tuple, each column in its type's natural order,
// whatever its clustering order: lower {(a, b), true} is (c1, c2) >= (a, b).
type Bound struct {
	Values    [][]byte
	Inclusive bool
}

// BoundSide says whether a ClusteringBound starts or ends a range.
type BoundSide int

// Sides of a clustering bound.
const (
	Start BoundSide = iota
	End
)

// PartitionRange returns the range of every row of a partition, its header
// row first.
func (c *KeyCodec) PartitionRange(pk [][]byte) (KeyRange, error) {
	p, err := c.appendPartitionPrefix(nil, pk)
	if err != nil {
		return KeyRange{}, err
	}
	return KeyRange{Start: withByte(p, keyTerm), Stop: withByte(p, keyHigh)}, nil
}

// withByte returns a copy of p followed by b.
func withByte(p []byte, b byte) []byte {
	out := make([]byte, len(p)+1)
	copy(out, p)
	out[len(p)] = b
	return out
}

// ClusteringBound returns a key-space bound for the clustering rows of a
// partition that extend prefix, in clustering (storage) order, like
// Cassandra's ClusteringBound: side Start gives a range start, End a range
// stop; inclusive says whether rows extending prefix are inside. DESC is
// already folded into clustering order here; use Slice for CQL-level
// bounds. An empty prefix gives the first (Start) or past-the-last (End)
// clustering row, excluding the header row.
func (c *KeyCodec) ClusteringBound(pk, prefix [][]byte, inclusive bool, side BoundSide) ([]byte, error) {
	p, err := c.appendPartitionPrefix(nil, pk)
	if err != nil {
		return nil, err
	}
	if len(prefix) == 0 {
		if side == Start {
			return append(p, keyLow), nil
		}
		return append(p, keyHigh), nil
	}
	if p, err = c.appendClustering(p, prefix); err != nil {
		return nil, err
	}
	if (side == Start) != inclusive {
		// Exclusive start and inclusive end both lie after every row
		// extending prefix.
		return append(p, keyHigh), nil
	}
	return p, nil
}

// Slice returns the key ranges, ascending and disjoint, that hold exactly the
// clustering rows of partition pk whose clustering columns start with prefix
// (equality on the first len(prefix) columns) and whose following columns
// satisfy lower and upper (nil or empty: unbounded). Bounds are CQL-level
// tuple comparisons; DESC columns are handled here, and a bound over columns
// of mixed clustering order can need several ranges, as in Cassandra. An
// empty result means no row can match. The header row is never included.
// For a reversed query, scan the ranges in reverse order, each reversed.
func (c *KeyCodec) Slice(pk, prefix [][]byte, lower, upper *Bound) ([]KeyRange, error) {
	base, err := c.appendPartitionPrefix(nil, pk)
	if err != nil {
		return nil, err
	}
	if base, err = c.appendClustering(base, prefix); err != nil {
		return nil, err
	}
	region := KeyRange{Start: base, Stop: withByte(base, keyHigh)}
	if len(prefix) == 0 {
		region.Start = withByte(base, keyLow)
	}
	lo, err := c.boundRanges(base, region, len(prefix), lower, true)
	if err != nil {
		return nil, err
	}
	hi, err := c.boundRanges(base, region, len(prefix), upper, false)
	if err != nil {
		return nil, err
	}
	return intersectRanges(lo, hi), nil
}

// boundRanges returns the ranges (within region) of rows whose clustering
// columns from first on satisfy the bound, as the union over i of "columns
// first..first+i-1 equal the bound's values and column first+i is strictly
// beyond value i", plus "all equal" when the bound is inclusive.
func (c *KeyCodec) boundRanges(base []byte, region KeyRange, first int, b *Bound, lower bool) ([]KeyRange, error) {
	if b == nil || len(b.Values) == 0 {
		return []KeyRange{region}, nil
	}
	if first+len(b.Values) > len(c.ck) {
		return nil, bindings.Errorf(bindings.CodeInvalid, "slice bound has %d values after a prefix of %d, the table has %d clustering columns", len(b.Values), first, len(c.ck))
	}
	var out []KeyRange
	eq := base // the key prefix of "columns first..first+i-1 equal"
	for i, v := range b.Values {
		col := first + i
		if v == nil {
			return nil, bindings.Errorf(bindings.CodeInvalid, "invalid null value in slice bound for clustering column %d", col)
		}
		withV, err := c.appendClusteringAt(append([]byte(nil), eq...), col, v)
		if err != nil {
			return nil, err
		}
		start := eq
		if i == 0 {
			start = region.Start
		}
		// "Beyond" is greater for a lower bound and less for an upper
		// one; in key order it flips again for DESC columns.
		if lower != c.desc[col] {
			out = append(out, KeyRange{Start: withByte(withV, keyHigh), Stop: withByte(eq, keyHigh)})
		} else {
			out = append(out, KeyRange{Start: start, Stop: withV})
		}
		eq = withV
	}
	if b.Inclusive {
		out = append(out, KeyRange{Start: eq, Stop: withByte(eq, keyHigh)})
	}
	sortRanges(out)
	return out, nil
}

// appendClusteringAt appends the canonical encoding of clustering column col.
func (c *KeyCodec) appendClusteringAt(dst []byte, col int, v []byte) ([]byte, error) {
	var e compEncoder
	return c.encodeColumn(&e, dst, col, v)
}

func sortRanges(rs []KeyRange) {
	// Few ranges (one per bound column): insertion sort.
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && bytes.Compare(rs[j].Start, rs[j-1].Start) < 0; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// intersectRanges intersects two sorted lists of disjoint ranges (nil Stop
// not allowed here) and merges touching results.
func intersectRanges(a, b []KeyRange) []KeyRange {
	var out []KeyRange
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		start := maxBytes(a[i].Start, b[j].Start)
		stop := minBytes(a[i].Stop, b[j].Stop)
		if bytes.Compare(start, stop) < 0 {
			if n := len(out); n > 0 && bytes.Equal(out[n-1].Stop, start) {
				out[n-1].Stop = stop
			} else {
				out = append(out, KeyRange{Start: start, Stop: stop})
			}
		}
		if bytes.Compare(a[i].Stop, b[j].Stop) < 0 {
			i++
		} else {
			j++
		}
	}
	return out
}

func maxBytes(a, b []byte) []byte {
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}

func minBytes(a, b []byte) []byte {
	if bytes.Compare(a, b) <= 0 {
		return a
	}
	return b
}

// Whole-table scans. Without salt the table is one range in token order.
// With N salt buckets each bucket is a range in token order; a scan in
// token order runs one iterator per bucket and merges their rows by
// MergeCompare. Token bounds apply per bucket.

// BucketRange returns the range of all rows of a salt bucket (the whole
// table, nil/nil, when unsalted; bucket is then ignored).
func (c *KeyCodec) BucketRange(bucket int) KeyRange {
	if c.salt == 0 {
		return KeyRange{}
	}
	r := KeyRange{Start: []byte{byte(bucket)}}
	if bucket+1 < maxSaltBuckets {
		r.Stop = []byte{byte(bucket + 1)}
	}
	return r
}

// TokenStart returns the first possible key of a bucket with a token >= t
// (bucket is ignored when unsalted). Resume after token t with t+1 (when
// t < MaxInt64; nothing has a greater token than MaxInt64).
func (c *KeyCodec) TokenStart(bucket int, t int64) []byte {
	var p []byte
	if c.salt > 0 {
		p = append(p, byte(bucket))
	}
	return appendToken(p, t)
}

// TokenRange returns the range of rows of a bucket with lo <= token <= hi;
// ok is false when lo > hi.
func (c *KeyCodec) TokenRange(bucket int, lo, hi int64) (r KeyRange, ok bool) {
	if lo > hi {
		return KeyRange{}, false
	}
	r.Start = c.TokenStart(bucket, lo)
	if hi < math.MaxInt64 {
		r.Stop = c.TokenStart(bucket, hi+1)
	} else {
		r.Stop = c.BucketRange(bucket).Stop
	}
	return r, true
}

// Bucket returns the salt bucket of a row key (0 when unsalted).
func (c *KeyCodec) Bucket(key []byte) int {
	if c.salt == 0 || len(key) == 0 {
		return 0
	}
	return int(key[0])
}

// MergeCompare orders row keys of different salt buckets as the unsalted
// table would: by token, partition key, clustering (the keys minus the salt
// byte).
func (c *KeyCodec) MergeCompare(a, b []byte) int {
	n := c.saltLen()
	if len(a) < n || len(b) < n {
		return bytes.Compare(a, b)
	}
	return bytes.Compare(a[n:], b[n:])
}

// SplitKeys returns up to regions-1 row keys splitting the table into
// regions of about equal share for pre-split stores: bucket boundaries,
// then evenly spaced tokens within each bucket.
func (c *KeyCodec) SplitKeys(regions int) [][]byte {
	if regions <= 1 {
		return nil
	}
	var out [][]byte
	if c.salt > 0 && regions <= c.salt {
		for i := 1; i < regions; i++ {
			out = append(out, []byte{byte(i * c.salt / regions)})
		}
		return out
	}
	buckets := max(c.salt, 1)
	perBucket := regions / buckets
	step := math.MaxUint64 / uint64(perBucket)
	for b := 0; b < buckets; b++ {
		if b > 0 {
			out = append(out, []byte{byte(b)})
		}
		for i := 1; i < perBucket; i++ {
			// i/perBucket of the way around the ring, as a signed token.
			t := int64(uint64(i)*step ^ (1 << 63))
			out = append(out, c.TokenStart(b, t))
		}
	}
	return out
}
