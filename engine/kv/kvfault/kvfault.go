package kvfault

import (
	"errors"
	"fmt"
	"sync"

	"github.com/dohyo/dohyo/engine/kv"
)

// Op names a call of the KV seam.
type Op uint16

// The calls an injector can fail. OpNext is one step of a scan's iterator
// (after the scan opened).
const (
	OpGet Op = 1 << iota
	OpScan
	OpNext
	OpApply
	OpCellGet
	OpCellSwap
	OpGetMeta
	OpPutMeta
	OpCreateTable
	OpDropTable
	OpTruncateTable
	OpSchema // SharedSchema: SchemaVersion, ReadSchema, CommitSchema

	// Reads, Writes and AllOps are common sets.
	Reads  = OpGet | OpScan | OpNext | OpCellGet
	Writes = OpApply | OpCellSwap
	AllOps = Op(1<<iota - 1)
)

var opNames = []string{"Get", "Scan", "Next", "Apply", "CellGet", "CellSwap", "GetMeta", "PutMeta", "CreateTable", "DropTable", "TruncateTable", "Schema"}

func (o Op) String() string {
	for i, n := range opNames {
		if o == 1<<i {
			return n
		}
	}
	return fmt.Sprintf("Op(%#x)", uint16(o))
}

// Call describes one call of the seam to an injector.
type Call struct {
	Op Op
	// Table is "keyspace.name" of the table the call touches ("" for
	// coordination cells, metadata and the shared schema). An Apply
	// touching several tables names the first mutation's.
	Table string
	// Tables are every table of an Apply's mutations, in order, deduplicated.
	Tables []string
}

// An Injector decides whether a call fails: nil lets it through.
// Injectors are called concurrently; they combine (Any, Seq).
type Injector interface {
	MaybeError(c Call) error
}

// Func adapts a function to an Injector.
type Func func(Call) error

// MaybeError calls f.
func (f Func) MaybeError(c Call) error { return f(c) }

// ErrInjected is wrapped by every error the package's injectors return.
var ErrInjected = errors.New("kvfault: injected error")

// Rule fails the calls it matches: of the calls whose Op is in Ops (0: all)
// and that touch Table (""): any table), it lets the first Skip through and
// fails the next Count (0: every one after Skip). Err is the error (nil:
// ErrInjected). A Rule is safe for concurrent use; Hits reports how many
// calls it failed.
type Rule struct {
	Ops   Op
	Table string
	Skip  int
	Count int
	Err   error

	mu   sync.Mutex
	seen int
	hits int
}

// MaybeError implements Injector.
func (r *Rule) MaybeError(c Call) error {
	if r.Ops != 0 && r.Ops&c.Op == 0 {
		return nil
	}
	if r.Table != "" && !touches(c, r.Table) {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	if r.seen <= r.Skip || (r.Count > 0 && r.seen > r.Skip+r.Count) {
		return nil
	}
	r.hits++
	if r.Err != nil {
		return fmt.Errorf("%w: %s on %q: %w", ErrInjected, c.Op, c.Table, r.Err)
	}
	return fmt.Errorf("%w: %s on %q", ErrInjected, c.Op, c.Table)
}

// Hits is how many calls the rule failed.
func (r *Rule) Hits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits
}

// Seen is how many calls matched the rule's Ops and Table (failed or not).
func (r *Rule) Seen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

func touches(c Call, table string) bool {
	if c.Table == table {
		return true
	}
	for _, t := range c.Tables {
		if t == table {
			return true
		}
	}
	return false
}

// Any fails a call with the first error of its injectors (each is asked
// in order until one fails the call, so later ones do not count it).
func Any(injs ...Injector) Injector {
	return Func(func(c Call) error {
		for _, in := range injs {
			if err := in.MaybeError(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// Switch is an Injector that can be replaced while calls run: tests
// install one after setting a store up and remove it before checking.
type Switch struct {
	mu  sync.RWMutex
	cur Injector
}

// Set installs in (nil: no faults).
func (s *Switch) Set(in Injector) {
	s.mu.Lock()
	s.cur = in
	s.mu.Unlock()
}

// MaybeError asks the installed injector.
func (s *Switch) MaybeError(c Call) error {
	s.mu.RLock()
	in := s.cur
	s.mu.RUnlock()
	if in == nil {
		return nil
	}
	return in.MaybeError(c)
}

func tableName(t *kv.TableSpec) string {
	if t == nil {
		return ""
	}
	return t.Keyspace + "." + t.Name
}

// check asks in about a call.
func check(in Injector, c Call) error {
	if in == nil {
		return nil
	}
	return in.MaybeError(c)
}
