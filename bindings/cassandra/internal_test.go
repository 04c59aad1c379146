package cassandra

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
)

func TestStatementKind(t *testing.T) {
	cases := map[string]string{
		"SELECT * FROM t":                               "select",
		"  insert INTO t (k) VALUES (1);":               "insert",
		"Update t SET v = 1 WHERE k = 1":                "update",
		"DELETE FROM t WHERE k = 1":                     "delete",
		"BEGIN UNLOGGED BATCH INSERT ... APPLY BATCH ;": "batch",
		"USE ks":                             "use",
		"CREATE TABLE t (k int PRIMARY KEY)": "create",
		"SELECT":                             "",
		"/* c */ SELECT * FROM t":            "/*",
	}
	for q, want := range cases {
		if got := statementKind(q); got != want {
			t.Errorf("statementKind(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestGocqlType(t *testing.T) {
	n := func(typ gocql.Type) gocql.TypeInfo { return gocql.NewNativeType(4, typ, "") }
	cases := []struct {
		in   gocql.TypeInfo
		want string
	}{
		{n(gocql.TypeVarchar), "text"},
		{n(gocql.TypeTimeUUID), "timeuuid"},
		{gocql.NewNativeType(4, gocql.TypeCustom, "org.apache.cassandra.db.marshal.DurationType"), "duration"},
		{gocql.NewNativeType(4, gocql.TypeCustom, "org.apache.cassandra.db.marshal.VectorType(...)"), "blob"},
		{gocql.CollectionType{NativeType: n(gocql.TypeMap).(gocql.NativeType), Key: n(gocql.TypeText), Elem: gocql.CollectionType{NativeType: n(gocql.TypeSet).(gocql.NativeType), Elem: n(gocql.TypeInt)}}, "map<text, set<int>>"},
		{gocql.TupleTypeInfo{NativeType: n(gocql.TypeTuple).(gocql.NativeType), Elems: []gocql.TypeInfo{n(gocql.TypeInt), n(gocql.TypeBlob)}}, "tuple<int, blob>"},
		{rawTupleInfo{gocql.TupleTypeInfo{NativeType: n(gocql.TypeTuple).(gocql.NativeType), Elems: []gocql.TypeInfo{n(gocql.TypeDate)}}}, "tuple<date>"},
		{gocql.UDTTypeInfo{NativeType: n(gocql.TypeUDT).(gocql.NativeType), KeySpace: "ks", Name: "pt", Elements: []gocql.UDTField{{Name: "x", Type: n(gocql.TypeInt)}}}, "frozen<pt>"},
	}
	for _, c := range cases {
		got, err := gocqlType(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("gocqlType(%v) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestRawCell(t *testing.T) {
	var c RawCell
	buf := []byte{1, 2, 3}
	if err := c.UnmarshalCQL(nil, buf); err != nil || string(c) != "\x01\x02\x03" {
		t.Fatalf("got %v, %v", c, err)
	}
	buf[0] = 9
	if c[0] != 1 {
		t.Error("cell aliases gocql's buffer")
	}
	_ = c.UnmarshalCQL(nil, buf[:0])
	if c == nil || len(c) != 0 {
		t.Errorf("empty value: got %#v, want non-nil empty", c)
	}
	_ = c.UnmarshalCQL(nil, nil)
	if c != nil {
		t.Errorf("null: got %#v, want nil", c)
	}
	if b, _ := RawValue(nil).MarshalCQL(nil); b != nil {
		t.Errorf("null value marshalled to %#v", b)
	}
}

func TestConvertError(t *testing.T) {
	ctx := context.Background()
	expired, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	cancelled, cancel2 := context.WithCancel(ctx)
	cancel2()
	cases := []struct {
		name    string
		ctx     context.Context
		err     error
		op      opKind
		code    bindings.ErrorCode
		wantCtx bool // the context's error, not a *bindings.Error
		badConn bool
	}{
		{"deadline read", expired, context.DeadlineExceeded, opRead, bindings.CodeReadTimeout, false, false},
		{"deadline write", expired, fmt.Errorf("x: %w", context.DeadlineExceeded), opSimple, bindings.CodeWriteTimeout, false, false},
		{"gocql timeout", ctx, gocql.ErrTimeoutNoResponse, opSimple, bindings.CodeWriteTimeout, false, false},
		{"cancelled", cancelled, context.Canceled, opRead, 0, true, false},
		{"no connections", ctx, gocql.ErrNoConnections, opRead, bindings.CodeUnavailable, false, true},
		{"dial refused", ctx, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, opRead, bindings.CodeUnavailable, false, true},
		{"closed", ctx, gocql.ErrConnectionClosed, opRead, bindings.CodeServerError, false, true},
		{"other", ctx, errors.New("boom"), opRead, bindings.CodeServerError, false, false},
		{"cql error", ctx, bindings.Errorf(bindings.CodeInvalid, "bad"), opRead, bindings.CodeInvalid, false, false},
	}
	for _, c := range cases {
		err := convertError(c.ctx, c.err, c.op, bindings.Quorum)
		var e *bindings.Error
		isCQL := errors.As(err, &e)
		switch {
		case c.wantCtx && isCQL:
			t.Errorf("%s: got CQL error %v, want the context's error", c.name, err)
		case c.wantCtx && !errors.Is(err, context.Canceled):
			t.Errorf("%s: got %v", c.name, err)
		case !c.wantCtx && (!isCQL || e.Code != c.code):
			t.Errorf("%s: got %v, want code %v", c.name, err, c.code)
		case errors.Is(err, bindings.ErrBadConn) != c.badConn:
			t.Errorf("%s: ErrBadConn = %v, want %v (%v)", c.name, !c.badConn, c.badConn, err)
		}
	}
}

func TestIsArgCountError(t *testing.T) {
	if !isArgCountError(fmt.Errorf("gocql: expected %d values send got %d", 2, 1)) ||
		!isArgCountError(fmt.Errorf("gocql: batch statement %d expected %d values send got %d", 0, 2, 1)) ||
		isArgCountError(errors.New("gocql: no hosts available in the pool")) || isArgCountError(nil) {
		t.Error("isArgCountError misclassifies")
	}
}
