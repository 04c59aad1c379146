package hbase

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// fakeMaster answers dohyo's master calls: each procedure-starting request
// with the next entry of starts (a procedure id, or an error), each
// GetProcedureResult with the next state of states.
type fakeMaster struct {
	mu     sync.Mutex
	starts []any // uint64 procedure id or error
	states []pb.GetProcedureResultResponse_State
	calls  []string
}

func (f *fakeMaster) SendRPC(c hrpc.Call) (proto.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c.Name())
	if _, ok := c.(*hrpc.GetProcedureState); ok {
		if len(f.states) == 0 {
			return nil, errors.New("fake master: no state left")
		}
		st := f.states[0]
		f.states = f.states[1:]
		return &pb.GetProcedureResultResponse{State: &st}, nil
	}
	if len(f.starts) == 0 {
		return nil, errors.New("fake master: no answer left")
	}
	next := f.starts[0]
	f.starts = f.starts[1:]
	if err, ok := next.(error); ok {
		return nil, err
	}
	// The proc_id these responses lack in gohbase's protos: unknown field 1.
	resp := c.NewResponse()
	resp.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), next.(uint64)))
	return resp, nil
}

// TestAdminProcedureNotFound: when the master answers NOT_FOUND for a
// procedure it started, a repeatable operation is sent once more (its
// repeat answers that it is done, which the callers take as success, or
// does it), as HBase's own Admin checks the outcome instead of failing;
// a truncation is not repeated, and the error says the procedure was lost.
func TestAdminProcedureNotFound(t *testing.T) {
	ctx := t.Context()
	notFound, finished := pb.GetProcedureResultResponse_NOT_FOUND, pb.GetProcedureResultResponse_FINISHED
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	m := &fakeMaster{starts: []any{uint64(501), fmt.Errorf("%s: bt", excNamespaceExists)}, states: []pb.GetProcedureResultResponse_State{notFound}}
	err := (&admin{rpc: m, log: quiet}).createNamespace(ctx, "bt")
	if !isJava(err, excNamespaceExists) || len(m.calls) != 3 {
		t.Fatalf("create namespace: %v after %v; want NamespaceExist after a second CreateNamespace", err, m.calls)
	}

	m = &fakeMaster{starts: []any{uint64(7), uint64(8)}, states: []pb.GetProcedureResultResponse_State{notFound, finished}}
	if err := (&admin{rpc: m, log: quiet}).disableTable(ctx, "ns:t"); err != nil || len(m.calls) != 4 {
		t.Fatalf("disable: %v after %v; want the repeat's procedure to finish", err, m.calls)
	}

	m = &fakeMaster{starts: []any{uint64(9)}, states: []pb.GetProcedureResultResponse_State{notFound}}
	if err := (&admin{rpc: m, log: quiet}).truncateTable(ctx, "ns:t"); !errors.Is(err, errProcedureNotFound) || len(m.calls) != 2 {
		t.Fatalf("truncate: %v after %v; want procedure not found, not repeated", err, m.calls)
	}

	// A lost procedure twice in a row is an error, not a loop.
	m = &fakeMaster{starts: []any{uint64(1), uint64(2)}, states: []pb.GetProcedureResultResponse_State{notFound, notFound}}
	if err := (&admin{rpc: m, log: quiet}).deleteTable(ctx, "ns:t"); !errors.Is(err, errProcedureNotFound) || len(m.calls) != 4 {
		t.Fatalf("delete: %v after %v; want procedure not found after one repeat", err, m.calls)
	}
}
