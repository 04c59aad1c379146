package murmur3

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Token returns Cassandra's Murmur3Partitioner token of a serialized
// partition key (engine.SerializePartitionKey): the first 64-bit half of
// MurmurHash3 x64/128 with seed 0, as Cassandra computes it. An empty key has
// the minimum token, and a hash equal to the minimum is moved to the maximum,
// so no real key gets the minimum token (Cassandra uses it as the ring's
// lower bound).
func Token(partitionKey []byte) int64 {
	if len(partitionKey) == 0 {
		return math.MinInt64
	}
	h := murmur3H1(partitionKey)
	if h == math.MinInt64 {
		return math.MaxInt64
	}
	return h
}

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// murmur3H1 is the h1 half of MurmurHash3_x64_128 (seed 0) in Cassandra's
// variant: tail bytes are sign-extended before they are shifted into place
// (Java's `(long) byteBuffer.get(i)`), which differs from the reference C
// implementation for tail bytes >= 0x80. Full 16-byte blocks are read as
// unsigned little-endian words, as in the reference.
func murmur3H1(data []byte) int64 {
	var h1, h2 uint64
	n := len(data)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])

		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := data[nblocks*16:]
	// sx sign-extends a tail byte the way Java's (long) cast of a byte does.
	sx := func(b byte) uint64 { return uint64(int64(int8(b))) }
	var k1, k2 uint64
	switch len(tail) {
	case 15:
		k2 ^= sx(tail[14]) << 48
		fallthrough
	case 14:
		k2 ^= sx(tail[13]) << 40
		fallthrough
	case 13:
		k2 ^= sx(tail[12]) << 32
		fallthrough
	case 12:
		k2 ^= sx(tail[11]) << 24
		fallthrough
	case 11:
		k2 ^= sx(tail[10]) << 16
		fallthrough
	case 10:
		k2 ^= sx(tail[9]) << 8
		fallthrough
	case 9:
		k2 ^= sx(tail[8])
		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= sx(tail[7]) << 56
		fallthrough
	case 7:
		k1 ^= sx(tail[6]) << 48
		fallthrough
	case 6:
		k1 ^= sx(tail[5]) << 40
		fallthrough
	case 5:
		k1 ^= sx(tail[4]) << 32
		fallthrough
	case 4:
		k1 ^= sx(tail[3]) << 24
		fallthrough
	case 3:
		k1 ^= sx(tail[2]) << 16
		fallthrough
	case 2:
		k1 ^= sx(tail[1]) << 8
		fallthrough
	case 1:
		k1 ^= sx(tail[0])
		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	return int64(h1)
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
