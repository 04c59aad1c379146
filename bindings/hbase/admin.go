package hbase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Master RPCs. The pinned gohbase hard-codes the "default" namespace in its
// admin calls and has no CreateNamespace or TruncateTable, so dohyo sends
// the MasterService requests itself through the admin client's SendRPC
// (gohbase routes any hrpc.Call of an admin client to the master).

// masterCall is one MasterService request.
type masterCall struct {
	ctx      context.Context
	method   string
	req      proto.Message
	newResp  func() proto.Message
	region   hrpc.RegionInfo
	resultch chan hrpc.RPCResult
}

var _ hrpc.Call = (*masterCall)(nil)

func newMasterCall(ctx context.Context, method string, req proto.Message, newResp func() proto.Message) *masterCall {
	return &masterCall{ctx: ctx, method: method, req: req, newResp: newResp, resultch: make(chan hrpc.RPCResult, 1)}
}

func (c *masterCall) Table() []byte                   { return nil }
func (c *masterCall) Name() string                    { return c.method }
func (c *masterCall) Key() []byte                     { return nil }
func (c *masterCall) Region() hrpc.RegionInfo         { return c.region }
func (c *masterCall) SetRegion(r hrpc.RegionInfo)     { c.region = r }
func (c *masterCall) ToProto() proto.Message          { return c.req }
func (c *masterCall) NewResponse() proto.Message      { return c.newResp() }
func (c *masterCall) ResultChan() chan hrpc.RPCResult { return c.resultch }
func (c *masterCall) Description() string             { return c.method }
func (c *masterCall) Context() context.Context        { return c.ctx }

// procResponse is every master response that starts a procedure.
type procResponse interface{ GetProcId() uint64 }

// admin runs master procedures.
type admin struct {
	rpc gohbase.RPCClient
	log *slog.Logger

	mu  sync.Mutex
	reg hrpc.RegionInfo // the master "region", once a call was routed
}

// close closes the connection to the master. gohbase's admin client cannot
// close itself (its Close closes a nil channel), but every call routed to
// the master carries the pseudo-region that holds that connection.
func (a *admin) close() {
	a.mu.Lock()
	reg := a.reg
	a.mu.Unlock()
	if reg == nil {
		return
	}
	if rc := reg.Client(); rc != nil {
		rc.Close()
	}
}

func pbTableName(fq string) *pb.TableName {
	ns, q := splitTableName(fq)
	return &pb.TableName{Namespace: []byte(ns), Qualifier: []byte(q)}
}

// errProcedureNotFound: asked for a procedure's result, the master did
// not know the procedure. It answers so once a client has fetched a
// finished procedure's result (the result is removed then), after its
// retention of completed procedures evicted it, and for an id it never
// gave; a GetProcedureResult repeated after its answer was lost, or a
// race in the master, leaves the caller not knowing the outcome. HBase's
// own Admin then checks the operation's outcome instead of failing
// (ProcedureFuture.waitOperationResult).
var errProcedureNotFound = errors.New("procedure not found")

// repeatable are the master operations whose repetition is harmless: a
// repeat either does what the first call did not, or fails with the
// exception that says it is done (NamespaceExist, TableExists,
// TableNotFound, TableNotEnabled, TableNotDisabled), which every caller
// takes as success. Truncation is not among them.
var repeatable = map[string]bool{
	"CreateNamespace": true, "CreateTable": true, "DeleteTable": true,
	"DisableTable": true, "EnableTable": true,
}

// run sends a procedure-starting request and waits for the procedure.
// When the master has lost track of the procedure (errProcedureNotFound),
// a repeatable request is sent once more to learn its outcome.
func (a *admin) run(ctx context.Context, method string, req proto.Message, newResp func() proto.Message) error {
	err := a.runOnce(ctx, method, req, newResp)
	if errors.Is(err, errProcedureNotFound) && repeatable[method] {
		a.log.WarnContext(ctx, "hbase: the master lost track of a procedure; asking again", "method", method, "err", err)
		err = a.runOnce(ctx, method, req, newResp)
	}
	return err
}

func (a *admin) runOnce(ctx context.Context, method string, req proto.Message, newResp func() proto.Message) error {
	call := newMasterCall(ctx, method, req, newResp)
	msg, err := a.rpc.SendRPC(call)
	if r := call.Region(); r != nil {
		a.mu.Lock()
		a.reg = r
		a.mu.Unlock()
	}
	if err != nil {
		return err
	}
	id, ok := procID(msg)
	if !ok {
		return nil // a master that ran the operation synchronously
	}
	return a.wait(ctx, method, id)
}

// procID returns the procedure id of a master response. gohbase's protos
// predate proc_id in some responses (CreateNamespace, truncateTable): there
// it is an unknown field 1 (a varint), read from the raw bytes.
func procID(msg proto.Message) (uint64, bool) {
	if pr, ok := msg.(procResponse); ok {
		return pr.GetProcId(), true
	}
	b := msg.ProtoReflect().GetUnknown()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, false
		}
		b = b[n:]
		if num == 1 && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(b)
			return v, n >= 0
		}
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return 0, false
		}
		b = b[n:]
	}
	return 0, false
}

// wait polls the master until the procedure ends.
func (a *admin) wait(ctx context.Context, method string, procID uint64) error {
	backoff := 10 * time.Millisecond
	for {
		msg, err := a.rpc.SendRPC(hrpc.NewGetProcedureState(ctx, procID))
		if err != nil {
			return err
		}
		res, ok := msg.(*pb.GetProcedureResultResponse)
		if !ok {
			return fmt.Errorf("%s: unexpected procedure response %T", method, msg)
		}
		switch res.GetState() {
		case pb.GetProcedureResultResponse_NOT_FOUND:
			return fmt.Errorf("%s: procedure %d: %w", method, procID, errProcedureNotFound)
		case pb.GetProcedureResultResponse_FINISHED:
			if fe := res.GetException(); fe != nil {
				ge := fe.GetGenericException()
				return &javaError{class: ge.GetClassName(), msg: ge.GetMessage()}
			}
			return nil
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(backoff*2, 500*time.Millisecond)
	}
}

// familyAttrs are the column family attributes of dohyo tables.
func familyAttrs(o TableOptions) map[string]string {
	return map[string]string{
		// One version: reads see the highest timestamp, which is the
		// engine's last-write-wins; older versions go at compaction.
		"VERSIONS":            "1",
		"MIN_VERSIONS":        "0",
		"KEEP_DELETED_CELLS":  "false",
		"TTL":                 strconv.Itoa(1<<31 - 1), // forever: the engine does TTLs
		"BLOOMFILTER":         "ROW",
		"BLOCKCACHE":          "true",
		"COMPRESSION":         o.Compression,
		"DATA_BLOCK_ENCODING": o.Encoding,
	}
}

func (a *admin) createTable(ctx context.Context, fq string, o TableOptions, splits [][]byte) error {
	attrs := familyAttrs(o)
	f := &pb.ColumnFamilySchema{Name: []byte(family)}
	for k, v := range attrs {
		f.Attributes = append(f.Attributes, &pb.BytesBytesPair{First: []byte(k), Second: []byte(v)})
	}
	req := &pb.CreateTableRequest{
		TableSchema: &pb.TableSchema{TableName: pbTableName(fq), ColumnFamilies: []*pb.ColumnFamilySchema{f}},
		SplitKeys:   splits,
	}
	return a.run(ctx, "CreateTable", req, func() proto.Message { return &pb.CreateTableResponse{} })
}

func (a *admin) createNamespace(ctx context.Context, ns string) error {
	req := &pb.CreateNamespaceRequest{NamespaceDescriptor: &pb.NamespaceDescriptor{Name: []byte(ns)}}
	return a.run(ctx, "CreateNamespace", req, func() proto.Message { return &pb.CreateNamespaceResponse{} })
}

func (a *admin) disableTable(ctx context.Context, fq string) error {
	req := &pb.DisableTableRequest{TableName: pbTableName(fq)}
	return a.run(ctx, "DisableTable", req, func() proto.Message { return &pb.DisableTableResponse{} })
}

func (a *admin) enableTable(ctx context.Context, fq string) error {
	req := &pb.EnableTableRequest{TableName: pbTableName(fq)}
	return a.run(ctx, "EnableTable", req, func() proto.Message { return &pb.EnableTableResponse{} })
}

func (a *admin) deleteTable(ctx context.Context, fq string) error {
	req := &pb.DeleteTableRequest{TableName: pbTableName(fq)}
	return a.run(ctx, "DeleteTable", req, func() proto.Message { return &pb.DeleteTableResponse{} })
}

// truncateTable empties a disabled table, keeping its region boundaries;
// HBase enables it again.
func (a *admin) truncateTable(ctx context.Context, fq string) error {
	req := &pb.TruncateTableRequest{TableName: pbTableName(fq), PreserveSplits: proto.Bool(true)}
	return a.run(ctx, "truncateTable", req, func() proto.Message { return &pb.TruncateTableResponse{} })
}

// javaError is a failed master procedure.
type javaError struct{ class, msg string }

func (e *javaError) Error() string { return "HBase " + e.class + ": " + e.msg }

// Java exception classes dohyo reacts to.
const (
	excTableExists       = "org.apache.hadoop.hbase.TableExistsException"
	excTableNotFound     = "org.apache.hadoop.hbase.TableNotFoundException"
	excTableNotEnabled   = "org.apache.hadoop.hbase.TableNotEnabledException"
	excTableNotDisabled  = "org.apache.hadoop.hbase.TableNotDisabledException"
	excNamespaceExists   = "org.apache.hadoop.hbase.NamespaceExistException"
	excNamespaceNotFound = "org.apache.hadoop.hbase.NamespaceNotFoundException"
)

// isJava reports whether err is (or reports) the Java exception class:
// gohbase surfaces RPC exceptions as text ("HBase Java exception <class>:
// <stack>"), failed procedures as javaError.
func isJava(err error, class string) bool {
	if err == nil {
		return false
	}
	var je *javaError
	if errors.As(err, &je) {
		return je.class == class
	}
	return strings.Contains(err.Error(), class)
}
