package relay

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/murmur3"
)

// Token-aware routing, as drivers do it: an EXECUTE of a statement whose
// partition key columns are all bound (the PREPARED answer lists their
// bind indexes, protocol v4 and later) goes first to the node that owns
// the key's token (Murmur3), then to the next nodes along the ring (the
// replicas under SimpleStrategy and, in one datacenter, under
// NetworkTopologyStrategy), those up before the others. The ring comes
// from system.local and system.peers(_v2) tokens at discovery. Other
// requests (QUERY, BATCH, statements with unbound key parts, named
// values) go round robin.

// ring is the cluster's token ring: tokens in order, with their node.
type ring struct {
	tokens []int64
	nodes  []string
}

// ringEntry is one token of a node.
type ringEntry struct {
	token int64
	node  string
}

// newRing builds the ring from each node's tokens.
func newRing(entries []ringEntry) *ring {
	slices.SortFunc(entries, func(a, b ringEntry) int {
		switch {
		case a.token < b.token:
			return -1
		case a.token > b.token:
			return 1
		}
		return 0
	})
	r := &ring{}
	for _, e := range entries {
		r.tokens = append(r.tokens, e.token)
		r.nodes = append(r.nodes, e.node)
	}
	return r
}

// replicas returns the distinct nodes from the owner of t (the node of the
// first token >= t, wrapping) along the ring.
func (r *ring) replicas(t int64) []string {
	if r == nil || len(r.tokens) == 0 {
		return nil
	}
	i, _ := slices.BinarySearch(r.tokens, t)
	var out []string
	for k := 0; k < len(r.tokens); k++ {
		n := r.nodes[(i+k)%len(r.tokens)]
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// decodeTokens reads a set<text> of tokens (system.local.tokens).
func decodeTokens(b []byte) []int64 {
	if len(b) < 4 {
		return nil
	}
	r := wire.NewReader(b)
	n := int(r.Int())
	var out []int64
	for i := 0; i < n && r.Err() == nil; i++ {
		v := r.Bytes()
		if t, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// pkIndexes reads the bind indexes of the partition key columns from a
// PREPARED answer's body after its id (shape), at protocol version; nil
// when the answer has none (protocol v3, or a key part not bound).
func pkIndexes(shape []byte, version byte) []int {
	if version < 4 {
		return nil
	}
	r := wire.NewReader(shape)
	if version >= 5 {
		r.ShortBytes() // result metadata id
	}
	r.Int() // flags
	r.Int() // columns
	n := int(r.Int())
	if r.Err() != nil || n <= 0 || n > 64 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = int(r.Short())
	}
	if r.Err() != nil {
		return nil
	}
	return out
}

// Query flags of an EXECUTE's parameters that matter here.
const (
	flagValues = 0x01
	flagNames  = 0x40
)

// routingToken returns the token of the partition an EXECUTE body (at
// protocol version) writes or reads, given its statement's partition key
// bind indexes; ok=false when it cannot tell (named values, a key value
// null or unset, a malformed body).
func routingToken(body []byte, version byte, pk []int) (t int64, ok bool) {
	_, r, ok := executeValues(body, version)
	if !ok || len(pk) == 0 {
		return 0, false
	}
	return tokenOfValues(r, pk)
}

// executeValues reads an EXECUTE body up to its values: the statement's id
// and a reader at the values (ok=false: no values, named values, or a
// malformed body).
func executeValues(body []byte, version byte) (id []byte, r *wire.Reader, ok bool) {
	r = wire.NewReader(body)
	id = r.ShortBytes()
	if version >= 5 {
		r.ShortBytes() // result metadata id
	}
	r.Short() // consistency
	var flags int32
	if version >= 5 {
		flags = r.Int()
	} else {
		flags = int32(r.Byte())
	}
	if r.Err() != nil || flags&flagValues == 0 || flags&flagNames != 0 {
		return nil, nil, false
	}
	return id, r, true
}

// tokenOfValues reads positional values (<n> then n [bytes]) at r and
// returns the token of those at the partition key's bind indexes pk
// (ok false: a key value is missing or null, or the values are cut short).
func tokenOfValues(r *wire.Reader, pk []int) (t int64, ok bool) {
	n := int(r.Short())
	values := make([][]byte, 0, min(n, 64))
	for i := 0; i < n; i++ {
		l := r.Int()
		if l < 0 {
			values = append(values, nil)
			continue
		}
		values = append(values, r.Take(int(l)))
	}
	if r.Err() != nil {
		return 0, false
	}
	var key []byte
	for _, i := range pk {
		if i >= len(values) || values[i] == nil {
			return 0, false
		}
		if len(pk) == 1 {
			key = values[i]
			break
		}
		key = binary.BigEndian.AppendUint16(key, uint16(len(values[i])))
		key = append(key, values[i]...)
		key = append(key, 0)
	}
	return murmur3.Token(key), true
}

// replicasFor returns the nodes that hold the partition an EXECUTE (or a
// BATCH, by its first statement) addresses, the owner first, or nil when
// it is not known (see routingToken).
func (rl *Relay) replicasFor(op byte, version byte, body []byte) []string {
	switch op {
	case wire.OpExecute:
		id, r, ok := executeValues(body, version)
		if !ok {
			return nil
		}
		return rl.preparedReplicas(id, r)
	case wire.OpBatch:
		return rl.batchReplicas(body)
	}
	return nil
}

// batchReplicas returns the nodes of the partition a BATCH's first
// statement addresses when that statement is prepared with its key bound
// (drivers route a batch by its first statement's routing key), else nil.
func (rl *Relay) batchReplicas(body []byte) []string {
	r := wire.NewReader(body)
	r.Byte() // batch type
	if r.Short() == 0 || r.Byte() != 1 || r.Err() != nil {
		return nil // empty, or a first statement given as text
	}
	id := r.ShortBytes()
	if r.Err() != nil {
		return nil
	}
	return rl.preparedReplicas(id, r)
}

// preparedReplicas returns the replicas of the partition whose key the
// statement prepared as id binds among the positional values at r (the
// owner first), or nil when the statement or its key is not known.
func (rl *Relay) preparedReplicas(id []byte, r *wire.Reader) []string {
	rp, ok := rl.prepared.Get(string(id))
	if !ok || len(rp.pk) == 0 {
		return nil
	}
	t, ok := tokenOfValues(r, rp.pk)
	if !ok {
		return nil
	}
	return rl.ring.Load().replicas(t)
}
