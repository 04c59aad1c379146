package capture

import (
	"sort"
	"sync"

	"github.com/dohyo/dohyo/cql"
)

// KeyspaceFilter keeps the records of some keyspaces: a record belongs to
// the keyspace its statement names (INSERT INTO ks.t, USE ks, CREATE
// KEYSPACE ks), else to its session's (Record.Keyspace) — also when the
// statement does not parse or names none of its own (roles, permissions).
// Batch children are judged one by one. Imports of traffic recorded on a
// server (a node's full query log, a tcpdump of its port) use it to keep
// one application's keyspaces and leave out everything else the server
// ran, drivers' reads of the system tables included. Safe for concurrent
// use.
type KeyspaceFilter struct {
	keep map[string]bool

	mu    sync.Mutex
	named map[string]string // statement text -> the keyspace it names, "" for none
	kept  uint64
	left  map[string]uint64 // records left out, by keyspace
}

// maxNamed bounds the cache of statement texts (literal statements make
// texts without end): past it the cache starts over.
const maxNamed = 8192

// NewKeyspaceFilter keeps the records of the given keyspaces.
func NewKeyspaceFilter(keyspaces []string) *KeyspaceFilter {
	f := &KeyspaceFilter{keep: map[string]bool{}, named: map[string]string{}, left: map[string]uint64{}}
	for _, ks := range keyspaces {
		f.keep[ks] = true
	}
	return f
}

// Keep tells whether r belongs to one of the filter's keyspaces, and
// counts it.
func (f *KeyspaceFilter) Keep(r *Record) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	ks, ok := f.named[r.Query]
	if !ok {
		ks = namedKeyspace(r.Query)
		if len(f.named) >= maxNamed {
			clear(f.named)
		}
		f.named[r.Query] = ks
	}
	if ks == "" {
		ks = r.Keyspace
	}
	if f.keep[ks] {
		f.kept++
		return true
	}
	f.left[ks]++
	return false
}

// namedKeyspace is the keyspace a statement's text names, "" when it
// names none or does not parse.
func namedKeyspace(text string) string {
	p, err := cql.Parse(text)
	if err != nil {
		return ""
	}
	return statementKeyspace(p, "")
}

// FilterCount is a number of records of one keyspace.
type FilterCount struct {
	Keyspace string // "" for records of no keyspace
	Records  uint64
}

// Counts returns how many records the filter kept, and those it left
// out by keyspace, the most first.
func (f *KeyspaceFilter) Counts() (kept uint64, left []FilterCount) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ks, n := range f.left {
		left = append(left, FilterCount{Keyspace: ks, Records: n})
	}
	sort.Slice(left, func(i, j int) bool {
		if left[i].Records != left[j].Records {
			return left[i].Records > left[j].Records
		}
		return left[i].Keyspace < left[j].Keyspace
	})
	return f.kept, left
}
