package cqlserver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/conncore"
)

// Authenticator enables SASL authentication (native_protocol_v4.spec
// §4.2.3): STARTUP is answered with AUTHENTICATE and the client must
// complete an AUTH_RESPONSE / AUTH_CHALLENGE exchange before queries.
type Authenticator interface {
	// Class is the authenticator class name sent in AUTHENTICATE; drivers
	// pick their credentials provider from it (e.g.
	// "org.apache.cassandra.auth.PasswordAuthenticator" for SASL PLAIN).
	Class() string
	// NewSASL starts one exchange for a connection from remote.
	NewSASL(remote net.Addr) SASL
}

// SASL is one connection's authentication exchange.
type SASL interface {
	// Evaluate consumes a client token. It returns the next challenge, or
	// done with an optional final token. An error is reported to the
	// client as an AuthenticationError with the error's text.
	Evaluate(ctx context.Context, token []byte) (challenge []byte, done bool, err error)
}

// supportedVersionNames are the PROTOCOL_VERSIONS of SUPPORTED, spelled as
// Cassandra does ("4/v4"); beta versions would carry "-beta".
var supportedVersionNames = []string{"3/v3", "4/v4", "5/v5"}

// errBadVersion is a frame with a protocol version dohyo does not speak.
type errBadVersion struct {
	version byte
	stream  int16
}

func (e *errBadVersion) Error() string { return invalidVersionMessage(e.version) }

// invalidVersionMessage is Cassandra's text; drivers match on
// "Invalid or unsupported protocol version" to step down to a lower one.
func invalidVersionMessage(v byte) string {
	return fmt.Sprintf("Invalid or unsupported protocol version (%d); supported versions are (%s)",
		v, strings.Join(supportedVersionNames, ", "))
}

// versionErrorFrame answers an unsupported version in a version the client
// can read: v1/v2 clients get their own 8-byte header (as Cassandra does),
// DSE clients (65, 66) a frame of their own version, everyone else v4,
// which every driver decodes.
func versionErrorFrame(e *errBadVersion) []byte {
	body := wire.AppendInt(nil, int32(bindings.CodeProtocolError))
	body = wire.AppendString(body, invalidVersionMessage(e.version))
	if e.version == 1 || e.version == 2 {
		f := []byte{e.version | wire.ResponseBit, 0, byte(int8(e.stream)), wire.OpError, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(f[4:], uint32(len(body)))
		return append(f, body...)
	}
	v := byte(4)
	if e.version == 65 || e.version == 66 {
		v = e.version
	}
	f := append(wire.StartFrame(nil, v, 0, e.stream, wire.OpError), body...)
	wire.FinishFrame(f)
	return f
}

// handle dispatches one frame. Handshake messages are answered here;
// requests go to their own goroutine (dispatch.go).
func (c *conn) handle(h wire.Header, body []byte) error {
	if h.Flags&wire.FlagCompressed != 0 && h.Version < 5 { // v5: the flag is ignored
		if c.body == nil {
			return wire.ProtocolErrorf("Received a compressed frame but no compression was negotiated in STARTUP")
		}
		var err error
		if body, err = c.body.Decompress(body, c.frameLimit()); err != nil {
			var tb *wire.TooBigError
			if errors.As(err, &tb) {
				return err
			}
			return wire.ProtocolErrorf("Cannot decompress frame body: %v", err)
		}
	}
	// Bytes after a body's last field are ignored in every opcode, as
	// Cassandra's codecs ignore them; the frame limit bounds them.
	r := wire.NewReader(body)
	var payload map[string][]byte
	if h.Flags&wire.FlagCustomPayload != 0 {
		// Custom payloads carry trace context and budgets for dohyo, and
		// are relayed as they are to Cassandra.
		if payload = r.BytesMap(); r.Err() != nil {
			return wire.ProtocolErrorf("Invalid custom payload in %s message: %v", wire.OpName(h.Op), r.Err())
		}
	}
	switch h.Op {
	case wire.OpOptions:
		c.send(c.supportedFrame(h.Stream))
		return nil
	case wire.OpStartup:
		return c.startup(h, r)
	case wire.OpAuthResponse:
		return c.authResponse(h, r)
	case wire.OpRegister, wire.OpQuery, wire.OpPrepare, wire.OpExecute, wire.OpBatch:
		switch c.state {
		case stateInit:
			return wire.ProtocolErrorf("Unexpected message %s, expecting STARTUP or OPTIONS", wire.OpName(h.Op))
		case stateAuth:
			return wire.ProtocolErrorf("Unexpected message %s, expecting AUTH_RESPONSE", wire.OpName(h.Op))
		}
		if h.Op == wire.OpRegister {
			return c.register(h, r)
		}
		return c.request(h, body, payload, r)
	}
	if wire.KnownOp(h.Op) {
		return wire.ProtocolErrorf("Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode %d (%s)", h.Op, wire.OpName(h.Op))
	}
	return wire.ProtocolErrorf("Unknown opcode %d", h.Op)
}

func (c *conn) supportedFrame(stream int16) []byte {
	f := wire.StartFrame(getBuf(), c.version, 0, stream, wire.OpSupported)
	f = wire.AppendShort(f, 3)
	f = wire.AppendString(f, "COMPRESSION")
	f = wire.AppendStringList(f, []string{"lz4", "snappy"})
	f = wire.AppendString(f, "CQL_VERSION")
	f = wire.AppendStringList(f, []string{CQLVersion})
	f = wire.AppendString(f, "PROTOCOL_VERSIONS")
	return wire.AppendStringList(f, supportedVersionNames)
}

func (c *conn) startup(h wire.Header, r *wire.Reader) error {
	if c.state != stateInit {
		return wire.ProtocolErrorf("Unexpected message STARTUP, the connection is already initialized")
	}
	opts := r.StringMap()
	if r.Err() != nil {
		return wire.ProtocolErrorf("Invalid STARTUP message: %v", r.Err())
	}
	if c.refused {
		// Answered before any state changes (no compression, no v5 framing yet).
		c.send(c.errorFrame(h.Stream, c.overConnections()))
		return errRejected
	}
	cqlVersion, ok := opts["CQL_VERSION"]
	if !ok {
		return wire.ProtocolErrorf("Missing value CQL_VERSION in STARTUP message")
	}
	if major, ok := cqlMajor(cqlVersion); !ok {
		return wire.ProtocolErrorf("Invalid version value: %s", cqlVersion)
	} else if major < 3 {
		return wire.ProtocolErrorf("CQL version %s is not supported by the binary protocol (supported version are >= 3.0.0)", cqlVersion)
	}
	var lz4Segments bool
	if comp := strings.ToLower(opts["COMPRESSION"]); comp != "" {
		switch {
		case h.Version >= 5 && comp == "lz4":
			lz4Segments = true
		case h.Version >= 5:
			return wire.ProtocolErrorf("Unsupported compression type %s for protocol version %d: only lz4 is supported", comp, h.Version)
		default:
			codec, ok := wire.BodyCodecFor(comp)
			if !ok {
				return wire.ProtocolErrorf("Unknown compression algorithm: %s", comp)
			}
			c.body = codec
		}
	}
	c.version = h.Version
	var reply []byte
	if a := c.srv.cfg.Authenticator; a != nil {
		c.sasl = a.NewSASL(c.nc.RemoteAddr())
		c.state = stateAuth
		reply = wire.AppendString(wire.StartFrame(nil, c.version, 0, h.Stream, wire.OpAuthenticate), a.Class())
	} else {
		if err := c.promote(); err != nil {
			c.send(c.errorFrame(h.Stream, c.overConnections()))
			return err
		}
		c.state = stateReady
		reply = wire.StartFrame(nil, c.version, 0, h.Stream, wire.OpReady)
	}
	wire.FinishFrame(reply)
	m := conncore.Msg{Frame: reply}
	if c.version >= 5 {
		// Everything after this reply travels in segments, both ways.
		m.Then = &conncore.Segments{LZ4: lz4Segments}
		c.seg = &wire.SegmentReader{R: c.br, Compressed: lz4Segments, MaxFrame: c.frameLimit()}
	}
	c.wq.Post(m)
	return nil
}

// overConnections is the answer to a connection over MaxConnections.
func (c *conn) overConnections() error {
	return bindings.Errorf(bindings.CodeOverloaded,
		"Too many client connections: this dohyo instance accepts at most %d", c.srv.cfg.MaxConnections)
}

// cqlMajor parses the major number of a "X.Y[.Z]" version.
func cqlMajor(v string) (int, bool) {
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	major := 0
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, false
		}
		if i == 0 {
			major = n
		}
	}
	return major, true
}

func (c *conn) authResponse(h wire.Header, r *wire.Reader) error {
	if c.state != stateAuth {
		return wire.ProtocolErrorf("Unexpected message AUTH_RESPONSE, no authentication is in progress")
	}
	token := r.Bytes()
	if r.Err() != nil {
		return wire.ProtocolErrorf("Invalid AUTH_RESPONSE message: %v", r.Err())
	}
	key := clientKey(c.nc.RemoteAddr())
	if d := c.srv.guard.backoff.wait(c.ctx, key); d > 0 {
		c.log.Debug("authentication attempt delayed after repeated failures", "delay", d)
	}
	challenge, done, err := c.sasl.Evaluate(c.ctx, token)
	if err == nil && done {
		err = c.promote()
		if err != nil {
			c.send(c.errorFrame(h.Stream, c.overConnections()))
			return err
		}
	}
	switch {
	case err != nil:
		c.srv.authFailures.Add(1)
		c.srv.guard.backoff.failed(key)
		c.log.Warn("authentication failed", "err", err)
		// A fresh exchange lets the client try again on this connection.
		c.sasl = c.srv.cfg.Authenticator.NewSASL(c.nc.RemoteAddr())
		c.send(c.errorFrame(h.Stream, bindings.Errorf(bindings.CodeAuthError, "%s", err.Error())))
	case done:
		c.srv.guard.backoff.succeeded(key)
		c.state = stateReady
		if c.srv.cfg.Authenticator.Class() == PasswordAuthenticatorClass {
			// Relayed requests carry the client's own identity to Cassandra.
			if user, pass, err := decodePlain(token); err == nil {
				c.creds = &bindings.RelayCredentials{User: user, Password: pass}
				c.session.SetRole(user) // the role dohyo authorizes (proxy/authz.go)
			}
		}
		c.send(wire.AppendBytes(wire.StartFrame(getBuf(), c.version, 0, h.Stream, wire.OpAuthSuccess), challenge))
	default:
		c.send(wire.AppendBytes(wire.StartFrame(getBuf(), c.version, 0, h.Stream, wire.OpAuthChallenge), challenge))
	}
	return nil
}

func (c *conn) register(h wire.Header, r *wire.Reader) error {
	types := r.StringList()
	if r.Err() != nil {
		return wire.ProtocolErrorf("Invalid REGISTER message: %v", r.Err())
	}
	var want uint32
	for _, t := range types {
		switch t {
		case "SCHEMA_CHANGE":
			want |= eventSchema
		case "TOPOLOGY_CHANGE":
			want |= eventTopology // tier membership: PushNodeEvent
		case "STATUS_CHANGE":
			want |= eventStatus
		default:
			return wire.ProtocolErrorf("Invalid event type %q in REGISTER", t)
		}
	}
	if want != 0 {
		c.evTypes.Or(want)
		c.srv.registerEvents(c)
	}
	c.send(wire.StartFrame(getBuf(), c.version, 0, h.Stream, wire.OpReady))
	return nil
}
