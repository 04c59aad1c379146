package lwtcheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// Op kinds.
const (
	Read  = "read"
	Write = "write"
	CAS   = "cas"
)

// Input is one operation on key Key.
type Input struct {
	Op       string
	Key      int
	Old, Val int // CAS: expected and new value; Write: Val
}

// Output is its outcome.
type Output struct {
	Val     int  // Read: the value read
	OK      bool // CAS: applied
	Unknown bool // error or timeout: it may or may not have taken effect
}

// Model is a register per key, starting at 0.
var Model = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[int][]porcupine.Operation{}
		for _, op := range h {
			k := op.Input.(Input).Key
			by[k] = append(by[k], op)
		}
		out := make([][]porcupine.Operation, 0, len(by))
		for _, ops := range by {
			out = append(out, ops)
		}
		return out
	},
	Init: func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(int), input.(Input), output.(Output)
		switch in.Op {
		case Read:
			return out.Val == s, s
		case Write:
			return true, in.Val
		}
		if out.Unknown { // linearized here it applies iff the value matches
			if s == in.Old {
				return true, in.Val
			}
			return true, s
		}
		if out.OK {
			return s == in.Old, in.Val
		}
		return s != in.Old, s
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(Input), output.(Output)
		switch in.Op {
		case Read:
			return fmt.Sprintf("k%d read -> %d", in.Key, out.Val)
		case Write:
			return fmt.Sprintf("k%d write %d (unknown=%v)", in.Key, in.Val, out.Unknown)
		}
		return fmt.Sprintf("k%d cas %d->%d -> %v (unknown=%v)", in.Key, in.Old, in.Val, out.OK, out.Unknown)
	},
}

// History records operations from concurrent clients.
type History struct {
	mu          sync.Mutex
	ops         []porcupine.Operation
	failedReads int
}

// Add records one operation called at call and answered at ret with out
// (err != nil: indeterminate, with no response time). A failed read is
// only counted: it changes nothing and says nothing, and an operation
// without a response widens the search of every one after it.
func (h *History) Add(client int, in Input, out Output, call, ret time.Time, err error) {
	r := ret.UnixNano()
	if err != nil {
		out.Unknown = true
		r = math.MaxInt64 // may take effect at any time after the call
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil && in.Op == Read {
		h.failedReads++
		return
	}
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Call: call.UnixNano(), Output: out, Return: r})
}

// Ops returns the recorded operations.
func (h *History) Ops() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]porcupine.Operation(nil), h.ops...)
}

// Check fails t unless the history is linearizable and has applied CAS
// operations; it logs what the history holds.
func (h *History) Check(t testing.TB) {
	t.Helper()
	ops := h.Ops()
	var unknown, casOK int
	for _, op := range ops {
		out := op.Output.(Output)
		if out.Unknown {
			unknown++
		}
		if out.OK {
			casOK++
		}
	}
	h.mu.Lock()
	failedReads := h.failedReads
	h.mu.Unlock()
	t.Logf("history: %d operations (%d applied CAS, %d indeterminate); %d failed reads left out", len(ops), casOK, unknown, failedReads)
	if casOK == 0 {
		t.Fatalf("no CAS applied: the history tests nothing")
	}
	res, info := porcupine.CheckOperationsVerbose(Model, ops, time.Minute)
	switch res {
	case porcupine.Ok:
	case porcupine.Illegal:
		path := filepath.Join(t.TempDir(), "history.html")
		if err := porcupine.VisualizePath(Model, info, path); err == nil {
			t.Logf("visualisation: %s", path)
		}
		t.Fatalf("LWT history is NOT linearizable (%d operations)", len(ops))
	default:
		t.Fatalf("linearizability check did not finish: %v", res)
	}
}

// RandomInput draws one operation of the workload every LWT check runs:
// on one of three keys, 40 % CAS, 30 % serial reads, 30 % writes, values
// from 0 to 3 (few values, so CAS succeeds often enough to matter).
func RandomInput(r *rand.Rand) Input {
	in := Input{Key: r.IntN(3), Old: r.IntN(4), Val: r.IntN(4)}
	switch p := r.IntN(10); {
	case p < 4:
		in.Op = CAS
	case p < 7:
		in.Op = Read
	default:
		in.Op = Write
	}
	return in
}
