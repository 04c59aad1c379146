package cqlserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/dohyo/dohyo/cql/wire"
)

// TestLargeFrames sends and receives envelopes larger than one v5 segment
// payload (split over several segments), compressed and not.
func TestLargeFrames(t *testing.T) {
	big := make([]byte, 300<<10)
	rand.Read(big[:len(big)/2]) // half incompressible, half zeros
	for _, tc := range []struct {
		v    primitive.ProtocolVersion
		comp string
	}{{5, ""}, {5, "lz4"}, {4, "lz4"}, {4, "snappy"}, {3, ""}} {
		t.Run(tc.v.String()+" "+tc.comp, func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := ts.pipeClient(t, tc.v)
			c.startup(tc.comp)
			r := c.rows("SELECT * FROM ks.echo", &message.QueryOptions{Consistency: 1,
				PositionalValues: []*primitive.Value{primitive.NewValue(big)}})
			if len(r.Data) != 1 || !bytes.Equal(r.Data[0][0], big) {
				t.Fatal("large value did not round-trip")
			}
			c.rows("SELECT * FROM ks.t", nil) // the stream stays in sync afterwards
		})
	}
}

// TestPipelining sends many requests before reading any response.
func TestPipelining(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			addr := ts.listen(t)
			c := ts.tcpClient(t, addr, v)
			c.startup("")
			const n = 200
			var buf bytes.Buffer
			for i := 1; i <= n; i++ {
				c.stream = int16(i)
				buf.Write(c.encode(&message.Query{Query: "SELECT * FROM ks.echo", Options: &message.QueryOptions{
					Consistency: 1, PositionalValues: []*primitive.Value{primitive.NewValue(be32(int32(i)))}}}, int16(i)))
			}
			if v >= 5 {
				// Envelopes may share segments: frame them in chunks.
				raw := buf.Bytes()
				var out bytes.Buffer
				for len(raw) > 0 {
					// Several whole envelopes per self-contained segment.
					n := 0
					for k := 0; k < 7 && n < len(raw); k++ {
						n += envLen(raw[n:])
					}
					c.encodeSegment(&out, raw[:n], true)
					raw = raw[n:]
				}
				c.nc.Write(out.Bytes())
			} else {
				c.nc.Write(buf.Bytes())
			}
			seen := map[int16]bool{}
			for i := 0; i < n; i++ {
				f := c.read()
				r, ok := f.Body.Message.(*message.RowsResult)
				if !ok || !bytes.Equal(r.Data[0][0], be32(int32(f.Header.StreamId))) {
					t.Fatalf("stream %d: %v", f.Header.StreamId, f.Body.Message)
				}
				seen[f.Header.StreamId] = true
			}
			if len(seen) != n {
				t.Errorf("%d distinct streams answered, want %d", len(seen), n)
			}
		})
	}
}

func envLen(b []byte) int {
	return wire.HeaderLen + int(uint32(b[5])<<24|uint32(b[6])<<16|uint32(b[7])<<8|uint32(b[8]))
}

// TestGracefulShutdown: in-flight requests finish and are answered, new
// connections are refused, Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	ts := newTestServer(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ts.srv.Serve(context.Background(), ln) }()
	c := ts.tcpClient(t, ln.Addr().String(), 4)
	c.startup("")
	id := c.send(&message.Query{Query: "SELECT * FROM ks.slow", Options: &message.QueryOptions{Consistency: 1}})
	waitFor(t, "the slow request to start", func() bool {
		ts.fake.mu.Lock()
		defer ts.fake.mu.Unlock()
		return len(ts.fake.reqs) > 0
	})
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- ts.srv.Shutdown(ctx)
	}()
	waitFor(t, "the listener to close", func() bool {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			nc.Close()
		}
		return err != nil
	})
	close(ts.fake.release)
	f := c.read()
	if f.Header.StreamId != id || f.Body.Message.(message.Result).GetResultType() != primitive.ResultTypeVoid {
		t.Errorf("in-flight answer: %v", f.Body.Message)
	}
	c.expectClosed()
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestHardShutdown: when the grace period ends, in-flight requests are
// canceled and Shutdown reports it.
func TestHardShutdown(t *testing.T) {
	ts := newTestServer(t, nil)
	c := ts.pipeClient(t, 4)
	c.startup("")
	c.send(&message.Query{Query: "SELECT * FROM ks.slow", Options: &message.QueryOptions{Consistency: 1}})
	waitFor(t, "the slow request to start", func() bool {
		ts.fake.mu.Lock()
		defer ts.fake.mu.Unlock()
		return len(ts.fake.reqs) > 0
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ts.srv.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
}

// TestServeConnContext: ending ServeConn's context ends the connection.
func TestServeConnContext(t *testing.T) {
	ts := newTestServer(t, nil)
	a, b := net.Pipe()
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ts.srv.ServeConn(ctx, b)
	}()
	c := newClient(t, a, 4)
	c.startup("")
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("ServeConn did not return after its context ended")
	}
}

// plainAuth is a tiny SASL PLAIN authenticator for the seam test.
type plainAuth struct{ user, pass string }

func (p plainAuth) Class() string         { return "org.apache.cassandra.auth.PasswordAuthenticator" }
func (p plainAuth) NewSASL(net.Addr) SASL { return &plainSASL{p} }

type plainSASL struct{ p plainAuth }

func (s *plainSASL) Evaluate(_ context.Context, token []byte) ([]byte, bool, error) {
	parts := bytes.Split(token, []byte{0})
	if len(parts) != 3 || string(parts[1]) != s.p.user || string(parts[2]) != s.p.pass {
		return nil, false, errors.New("Provided username and/or password are incorrect")
	}
	return nil, true, nil
}

func TestAuthenticatorSeam(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, func(c *Config) { c.Authenticator = plainAuth{"u", "p"} })
			c := ts.pipeClient(t, v)
			m := c.do(message.NewStartup()).Body.Message
			a, ok := m.(*message.Authenticate)
			if !ok || a.Authenticator != "org.apache.cassandra.auth.PasswordAuthenticator" {
				t.Fatalf("STARTUP: %v", m)
			}
			if v >= 5 {
				c.seg = segment.NewCodec() // framing starts after AUTHENTICATE too
			}
			if m := c.query("SELECT * FROM ks.t", nil); m.(message.Error).GetErrorCode() != primitive.ErrorCodeProtocolError {
				t.Fatalf("query before auth: %v", m)
			}
		})
	}
	ts := newTestServer(t, func(c *Config) { c.Authenticator = plainAuth{"u", "p"} })
	c := ts.pipeClient(t, 4)
	c.do(message.NewStartup())
	if m := c.do(&message.AuthResponse{Token: []byte("\x00u\x00wrong")}).Body.Message; m.(message.Error).GetErrorCode() != primitive.ErrorCodeAuthenticationError {
		t.Fatalf("bad password: %v", m)
	}
	if m := c.do(&message.AuthResponse{Token: []byte("\x00u\x00p")}).Body.Message; m.GetOpCode() != primitive.OpCodeAuthSuccess {
		t.Fatalf("good password: %v", m)
	}
	c.rows("SELECT * FROM ks.t", nil)
}

// TestConcurrentConnections runs many connections at once (race detector).
func TestConcurrentConnections(t *testing.T) {
	ts := newTestServer(t, nil)
	addr := ts.listen(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(v primitive.ProtocolVersion) {
			defer wg.Done()
			c := ts.tcpClient(t, addr, v)
			c.startup("lz4")
			for j := 0; j < 20; j++ {
				c.rows("SELECT * FROM ks.t", nil)
				c.rows("SELECT * FROM system.local", nil)
			}
		}(allVersions[i%3])
	}
	wg.Wait()
}
