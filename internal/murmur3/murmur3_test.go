package murmur3

import (
	"bufio"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestTokenKnownAnswers(t *testing.T) {
	tests := []struct {
		name string
		key  string // hex
		want int64
	}{
		// token() values of real Cassandra for common partition keys.
		{"int 1", "00000001", -4069959284402364209},
		{"bigint 1", "0000000000000001", 6292367497774912474},
		{"text hello", hex.EncodeToString([]byte("hello")), -3758069500696749310},
		{"one negative byte", "ff", -4442228696663692417},
		{"signed tail bytes", "80ff7f01", -1764377463137273873},
		{"empty key is the minimum token", "", math.MinInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, err := hex.DecodeString(tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if got := Token(key); got != tc.want {
				t.Errorf("Token(%s) = %d, want %d", tc.key, got, tc.want)
			}
		})
	}
}

// TestMurmur3H1Vectors uses the h1 vectors published with gocql's murmur
// package (computed by the DataStax Java driver): "", "0", "01", ... cover
// every tail length, and a key whose tail has bytes >= 0x80.
func TestMurmur3H1Vectors(t *testing.T) {
	series := []uint64{
		0x0000000000000000, 0x2ac9debed546a380, 0x649e4eaa7fc1708e, 0xce68f60d7c353bdb,
		0x0f95757ce7f38254, 0x0f04e459497f3fc1, 0x88c0a92586be0a27, 0x13eb9fb82606f7a6,
		0x8236039b7387354d, 0x4c1e87519fe738ba, 0x3f9652ac3effeb24, 0x3f33760ded9006c6,
		0xaed70a6631854cb1, 0x8a299a8f8e0e2da7, 0x624b675c779249a6, 0xa4b203bb1d90b9a3,
		0xa3293ad698ecb99a, 0xbc740023dbd50048, 0x3fe5ab9837d25cdd, 0x2d0338c1ca87d132,
	}
	sample := ""
	for i, want := range series {
		if got := murmur3H1([]byte(sample)); got != int64(want) {
			t.Errorf("murmur3H1(%q) = %x, want %x", sample, uint64(got), want)
		}
		sample += strconv.Itoa(i % 10)
	}
	others := map[string]uint64{
		"hello":        0xcbd8a7b341bd9b02,
		"hello, world": 0x342fac623a5ebc8e,
		"The quick brown fox jumps over the lazy dog.": 0xcd99481f9ee902c9,
	}
	for s, want := range others {
		if got := murmur3H1([]byte(s)); got != int64(want) {
			t.Errorf("murmur3H1(%q) = %x, want %x", s, uint64(got), want)
		}
	}
	signed, _ := hex.DecodeString("00104327529fb645dd00b883ec39ae448bb800000400066a6b00")
	if got, want := murmur3H1(signed), int64(-9223371632693506265); got != want {
		t.Errorf("murmur3H1(signed tail) = %d, want %d", got, want)
	}
}

// TestTokenCassandraGolden checks tokens of random keys (every length up to
// 40, tails with all bytes >= 0x80) against Cassandra's own
// Murmur3Partitioner (testdata/cassandra_tokens.txt).
func TestTokenCassandraGolden(t *testing.T) {
	f, err := os.Open("testdata/cassandra_tokens.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		h, tok, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		if h == "~" {
			h = ""
		}
		key, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		want, err := strconv.ParseInt(tok, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := Token(key); got != want {
			t.Errorf("Token(%s) = %d, want %d", h, got, want)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d golden tokens read", n)
	}
}

func BenchmarkToken(b *testing.B) {
	key := []byte("user:0000012345")
	for b.Loop() {
		Token(key)
	}
}
