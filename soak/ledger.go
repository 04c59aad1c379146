package soak

import (
	"sync"
	"sync/atomic"
)

// Numbers of counter and LWT keys per keyspace.
const (
	counterKeys = 16
	lwtKeys     = 8
	recentKeys  = 4096
)

// ledger is what the clients know about one keyspace: which writes were
// acknowledged (a bitmap over the write sequence), the recent ones (reads
// pick from them), and per counter and LWT key the acknowledged and
// unknown (errored: may or may not have applied) operations.
type ledger struct {
	next atomic.Int64 // next row key to write

	mu       sync.Mutex
	acked    []uint64 // bitmap by row key
	nAcked   int64
	recent   [recentKeys]int64
	nRecent  int
	counters [counterKeys]pending
	lwt      [lwtKeys]pending
	lwtSeen  [lwtKeys]int64 // last value seen per LWT key (the next CAS's guess)

	// lwtBusy holds one CAS in flight per LWT key: the soak's own clients
	// never contend for a key (Paxos contention would time out LWTs on a
	// healthy cluster and be counted against it).
	lwtBusy [lwtKeys]sync.Mutex
}

// claimLWT picks a free LWT key from r's start (ok false: all busy) and
// holds it until the returned release is called.
func (l *ledger) claimLWT(start int) (key int, release func(), ok bool) {
	for i := range lwtKeys {
		k := (start + i) % lwtKeys
		if l.lwtBusy[k].TryLock() {
			return k, l.lwtBusy[k].Unlock, true
		}
	}
	return 0, nil, false
}

// pending counts one key's operations by outcome.
type pending struct{ Acked, Unknown int64 }

func (l *ledger) ack(k int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := int(k / 64)
	for len(l.acked) <= w {
		l.acked = append(l.acked, 0)
	}
	if l.acked[w]&(1<<(k%64)) == 0 {
		l.nAcked++
	}
	l.acked[w] |= 1 << (k % 64)
	l.recent[l.nRecent%recentKeys] = k
	l.nRecent++
}

func (l *ledger) isAcked(k int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := int(k / 64)
	return w < len(l.acked) && l.acked[w]&(1<<(k%64)) != 0
}

// pick returns a recently acknowledged row key (ok false: none yet).
func (l *ledger) pick(r uint64) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(l.nRecent, recentKeys)
	if n == 0 {
		return 0, false
	}
	return l.recent[r%uint64(n)], true
}

func (l *ledger) counter(k int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok {
		l.counters[k].Acked++
	} else {
		l.counters[k].Unknown++
	}
}

// lwtGuess is the value the next CAS on key k expects.
func (l *ledger) lwtGuess(k int) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lwtSeen[k]
}

// lwtResult records a CAS: applied (guess+1 written), not applied (the
// current value is seen), or unknown (an error).
func (l *ledger) lwtResult(k int, guess int64, applied bool, seen int64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil:
		l.lwt[k].Unknown++
	case applied:
		l.lwt[k].Acked++
		l.lwtSeen[k] = max(l.lwtSeen[k], guess+1)
	default:
		l.lwtSeen[k] = seen
	}
}

// rowValue is the value written with row key k (read-back checks it).
func rowValue(k int64) int64 { return k*2654435761 + 12345 }
