package cassandra_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra"
)

// scripted is an in-process server answering each request with handle's
// message (nil: no answer at all). It records every request.
type scripted struct {
	addr string
	mu   sync.Mutex
	got  []message.Message
}

func newScripted(t *testing.T, handle func(message.Message) message.Message) *scripted {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				go func() { <-t.Context().Done(); c.Close() }()
				codec := frame.NewCodec()
				for {
					f, err := codec.DecodeFrame(c)
					if err != nil {
						return
					}
					s.mu.Lock()
					s.got = append(s.got, f.Body.Message)
					s.mu.Unlock()
					resp := handle(f.Body.Message)
					if resp == nil {
						continue
					}
					if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, f.Header.StreamId, resp), c); err != nil {
						return
					}
				}
			}()
		}
	}()
	return s
}

func (s *scripted) messages() []message.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]message.Message(nil), s.got...)
}

func scriptedConfig(addr string) cassandra.Config {
	cfg := cassandra.DefaultConfig()
	cfg.Hosts = []string{addr}
	cfg.Timeout = 5 * time.Second
	return cfg
}

// TestNativeBackendScripted checks framing and conversions of the raw
// client against a scripted server, without Cassandra.
func TestNativeBackendScripted(t *testing.T) {
	srv := newScripted(t, func(m message.Message) message.Message {
		switch m := m.(type) {
		case *message.Startup:
			return &message.Ready{}
		case *message.Query:
			switch m.Query {
			case "USE ks":
				return &message.SetKeyspaceResult{Keyspace: "ks"}
			case "BAD":
				return &message.Invalid{ErrorMessage: "nope"}
			case "UNAVAILABLE":
				return &message.Unavailable{ErrorMessage: "no", Consistency: primitive.ConsistencyLevelQuorum, Required: 2, Alive: 1}
			case "WTIMEOUT":
				return &message.WriteTimeout{ErrorMessage: "slow", Consistency: primitive.ConsistencyLevelOne, Received: 0, BlockFor: 1, WriteType: primitive.WriteTypeCas}
			case "EXISTS":
				return &message.AlreadyExists{ErrorMessage: "dup", Keyspace: "ks", Table: "t"}
			case "CREATE":
				return &message.SchemaChangeResult{ChangeType: primitive.SchemaChangeTypeCreated, Target: primitive.SchemaChangeTargetTable, Keyspace: "ks", Object: "t"}
			case "HANG":
				return nil
			}
			return &message.RowsResult{
				Metadata: &message.RowsMetadata{ColumnCount: 3, PagingState: []byte("p"), Columns: []*message.ColumnMetadata{
					{Keyspace: "ks", Table: "t", Name: "k", Type: datatype.Int},
					{Keyspace: "ks", Table: "t", Name: "m", Type: datatype.NewMap(datatype.Varchar, datatype.NewList(datatype.Bigint))},
					{Keyspace: "ks", Table: "t", Name: "d", Type: datatype.NewCustom("org.apache.cassandra.db.marshal.DurationType")},
				}},
				Data: message.RowSet{{{0, 0, 0, 1}, nil, {0, 0, 0}}, {{0, 0, 0, 2}, {}, nil}},
			}
		}
		return &message.ServerError{ErrorMessage: "unexpected"}
	})
	b, err := cassandra.OpenNative(t.Context(), scriptedConfig(srv.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := t.Context()

	res, err := b.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: "SELECT * FROM t", Consistency: bindings.One, PageSize: 5,
		Values: []bindings.Value{{Bytes: []byte{1}}, {Unset: true}, {}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != bindings.ResultRows || string(res.PagingState) != "p" || len(res.Rows) != 2 {
		t.Fatalf("result: got %+v", res)
	}
	for i, want := range []string{"int", "map<text, list<bigint>>", "duration"} {
		if got := res.Columns[i].Type.String(); got != want {
			t.Errorf("column %d type: got %s, want %s", i, got, want)
		}
	}
	if res.Rows[0][1] != nil || res.Rows[1][1] == nil || len(res.Rows[1][1]) != 0 {
		t.Errorf("null versus empty cells lost: %#v", res.Rows)
	}

	cases := []struct {
		query string
		check func(*bindings.Error) bool
	}{
		{"BAD", func(e *bindings.Error) bool { return e.Code == bindings.CodeInvalid && e.Message == "nope" }},
		{"UNAVAILABLE", func(e *bindings.Error) bool {
			return e.Code == bindings.CodeUnavailable && e.Consistency == bindings.Quorum && e.BlockFor == 2 && e.Received == 1
		}},
		{"WTIMEOUT", func(e *bindings.Error) bool {
			return e.Code == bindings.CodeWriteTimeout && e.WriteType == "CAS" && e.BlockFor == 1
		}},
		{"EXISTS", func(e *bindings.Error) bool {
			return e.Code == bindings.CodeAlreadyExists && e.Keyspace == "ks" && e.Table == "t"
		}},
	}
	for _, c := range cases {
		_, err := b.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: c.query, Consistency: bindings.One})
		var e *bindings.Error
		if !errors.As(err, &e) || !c.check(e) {
			t.Errorf("%s: got error %#v", c.query, err)
		}
	}
	res, err = b.Execute(ctx, &bindings.Request{Query: "CREATE", Consistency: bindings.One})
	if err != nil || res.Kind != bindings.ResultSchemaChange || !reflect.DeepEqual(*res.Change, bindings.SchemaChange{
		Type: bindings.Created, Target: bindings.TargetTable, Keyspace: "ks", Object: "t"}) {
		t.Errorf("schema change: got %+v, %v", res, err)
	}

	// A request the server never answers ends at the caller's deadline as
	// a timeout error.
	tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = b.Execute(tctx, &bindings.Request{Keyspace: "ks", Query: "HANG", Consistency: bindings.Quorum})
	var e *bindings.Error
	if !errors.As(err, &e) || e.Code != bindings.CodeWriteTimeout || e.Consistency != bindings.Quorum {
		t.Errorf("deadline: got %#v, want a WriteTimeout at QUORUM", err)
	}

	msgs := srv.messages()
	if len(msgs) < 3 {
		t.Fatalf("server saw %d messages", len(msgs))
	}
	if _, ok := msgs[0].(*message.Startup); !ok {
		t.Errorf("first message: got %T, want STARTUP", msgs[0])
	}
	if q, ok := msgs[1].(*message.Query); !ok || q.Query != "USE ks" {
		t.Errorf("second message: got %v, want USE ks", msgs[1])
	}
	q := msgs[2].(*message.Query)
	if q.Options.PageSize != 5 || len(q.Options.PositionalValues) != 3 ||
		q.Options.PositionalValues[1].Type != primitive.ValueTypeUnset || q.Options.PositionalValues[2].Type != primitive.ValueTypeNull ||
		!bytes.Equal(q.Options.PositionalValues[0].Contents, []byte{1}) {
		t.Errorf("query options: got %+v", q.Options)
	}
}

// TestNativeAuth checks the SASL PLAIN exchange with PasswordAuthenticator.
func TestNativeAuth(t *testing.T) {
	srv := newScripted(t, func(m message.Message) message.Message {
		switch m := m.(type) {
		case *message.Startup:
			return &message.Authenticate{Authenticator: "org.apache.cassandra.auth.PasswordAuthenticator"}
		case *message.AuthResponse:
			if string(m.Token) == "\x00alice\x00secret" {
				return &message.AuthSuccess{}
			}
			return &message.AuthenticationError{ErrorMessage: "bad credentials"}
		case *message.Query:
			return &message.VoidResult{}
		}
		return &message.ServerError{ErrorMessage: "unexpected"}
	})
	for _, c := range []struct {
		user, password string
		wantCode       bindings.ErrorCode // 0: success
	}{
		{"alice", "secret", 0},
		{"alice", "wrong", bindings.CodeAuthError},
		{"", "", bindings.CodeAuthError},
	} {
		cfg := scriptedConfig(srv.addr)
		cfg.User, cfg.Password = c.user, c.password
		b, err := cassandra.OpenNative(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Execute(t.Context(), &bindings.Request{Query: "INSERT", Consistency: bindings.One})
		b.Close()
		if c.wantCode == 0 {
			if err != nil {
				t.Errorf("user %q: got %v, want success", c.user, err)
			}
			continue
		}
		var e *bindings.Error
		if !errors.As(err, &e) || e.Code != c.wantCode {
			t.Errorf("user %q: got %v, want code %v", c.user, err, c.wantCode)
		}
	}
}
