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
	body := appendInt(nil, int32(bindings.CodeProtocolError))
	body = appendString(body, invalidVersionMessage(e.version))
	if e.version == 1 || e.version == 2 {
		f := []byte{e.version | responseBit, 0, byte(int8(e.stream)), opError, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(f[4:], uint32(len(body)))
		return append(f, body...)
	}
	v := byte(4)
	if e.version == 65 || e.version == 66 {
		v = e.version
	}
	f := append(startFrame(nil, v, 0, e.stream, opError), body...)
	finishFrame(f)
	return f
}

// handle dispatches one frame. Handshake messages are answered here;
// requests go to their own goroutine (dispatch.go).
func (c *conn) handle(h header, body []byte) error {
	if h.flags&flagCompressed != 0 && h.version < 5 { // v5: the flag is ignored
		if c.body == nil {
			return protocolErrorf("Received a compressed frame but no compression was negotiated in STARTUP")
		}
		var err error
		if body, err = c.body.decompress(body, c.frameLimit()); err != nil {
			var tb *errTooBig
			if errors.As(err, &tb) {
				return err
			}
			return protocolErrorf("Cannot decompress frame body: %v", err)
		}
	}
	r := &rbuf{b: body}
	var payload map[string][]byte
	if h.flags&flagCustomPayload != 0 {
		// Custom payloads carry trace context and budgets for dohyo, and
		// are relayed as they are to Cassandra.
		if payload = r.bytesMap(); r.err != nil {
			return protocolErrorf("Invalid custom payload in %s message: %v", opName(h.op), r.err)
		}
	}
	switch h.op {
	case opOptions:
		if err := noTrailing(r, h.op); err != nil {
			return err
		}
		c.send(c.supportedFrame(h.stream))
		return nil
	case opStartup:
		return c.startup(h, r)
	case opAuthResponse:
		return c.authResponse(h, r)
	case opRegister, opQuery, opPrepare, opExecute, opBatch:
		switch c.state {
		case stateInit:
			return protocolErrorf("Unexpected message %s, expecting STARTUP or OPTIONS", opName(h.op))
		case stateAuth:
			return protocolErrorf("Unexpected message %s, expecting AUTH_RESPONSE", opName(h.op))
		}
		if h.op == opRegister {
			return c.register(h, r)
		}
		return c.request(h, body, payload, r)
	}
	if _, known := opNames[h.op]; known {
		return protocolErrorf("Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode %d (%s)", h.op, opName(h.op))
	}
	return protocolErrorf("Unknown opcode %d", h.op)
}

func (c *conn) supportedFrame(stream int16) []byte {
	f := startFrame(getBuf(), c.version, 0, stream, opSupported)
	f = appendShort(f, 3)
	f = appendString(f, "COMPRESSION")
	f = appendStringList(f, []string{"lz4", "snappy"})
	f = appendString(f, "CQL_VERSION")
	f = appendStringList(f, []string{CQLVersion})
	f = appendString(f, "PROTOCOL_VERSIONS")
	return appendStringList(f, supportedVersionNames)
}

func (c *conn) startup(h header, r *rbuf) error {
	if c.state != stateInit {
		return protocolErrorf("Unexpected message STARTUP, the connection is already initialized")
	}
	opts := r.stringMap()
	if r.err != nil {
		return protocolErrorf("Invalid STARTUP message: %v", r.err)
	}
	if err := noTrailing(r, h.op); err != nil {
		return err
	}
	if c.refused {
		// Answered before any state changes (no compression, no v5 framing yet).
		c.send(c.errorFrame(h.stream, c.overConnections()))
		return errRejected
	}
	cqlVersion, ok := opts["CQL_VERSION"]
	if !ok {
		return protocolErrorf("Missing value CQL_VERSION in STARTUP message")
	}
	if major, ok := cqlMajor(cqlVersion); !ok {
		return protocolErrorf("Invalid version value: %s", cqlVersion)
	} else if major < 3 {
		return protocolErrorf("CQL version %s is not supported by the binary protocol (supported version are >= 3.0.0)", cqlVersion)
	}
	var lz4Segments bool
	if comp := strings.ToLower(opts["COMPRESSION"]); comp != "" {
		switch {
		case h.version >= 5 && comp == "lz4":
			lz4Segments = true
		case h.version >= 5:
			return protocolErrorf("Unsupported compression type %s for protocol version %d: only lz4 is supported", comp, h.version)
		default:
			codec, ok := bodyCodecFor(comp)
			if !ok {
				return protocolErrorf("Unknown compression algorithm: %s", comp)
			}
			c.body = codec
		}
	}
	c.version = h.version
	var reply []byte
	if a := c.srv.cfg.Authenticator; a != nil {
		c.sasl = a.NewSASL(c.nc.RemoteAddr())
		c.state = stateAuth
		reply = appendString(startFrame(nil, c.version, 0, h.stream, opAuthenticate), a.Class())
	} else {
		if err := c.promote(); err != nil {
			c.send(c.errorFrame(h.stream, c.overConnections()))
			return err
		}
		c.state = stateReady
		reply = startFrame(nil, c.version, 0, h.stream, opReady)
	}
	finishFrame(reply)
	m := outMsg{frame: reply}
	if c.version >= 5 {
		// Everything after this reply travels in segments, both ways.
		m.v5 = &v5Switch{lz4: lz4Segments}
		c.seg = &segmentReader{r: c.br, compressed: lz4Segments, maxFrame: c.frameLimit()}
	}
	c.enqueue(m, false)
	return nil
}

// overConnections is the answer to a connection over MaxConnections.
func (c *conn) overConnections() error {
	return bindings.Errorf(bindings.CodeOverloaded,
		"Too many client connections: this dohyo instance accepts at most %d", c.srv.cfg.MaxConnections)
}

// noTrailing rejects a message body with bytes after its last field: a
// client and dohyo that disagree on a body's layout (a BATCH whose
// [short] count wrapped, say) must not run part of it silently.
func noTrailing(r *rbuf, op byte) error {
	if r.err == nil && len(r.b) > 0 {
		return protocolErrorf("Invalid %s message: %d unexpected bytes after the message", opName(op), len(r.b))
	}
	return nil
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

func (c *conn) authResponse(h header, r *rbuf) error {
	if c.state != stateAuth {
		return protocolErrorf("Unexpected message AUTH_RESPONSE, no authentication is in progress")
	}
	token := r.bytes_()
	if r.err != nil {
		return protocolErrorf("Invalid AUTH_RESPONSE message: %v", r.err)
	}
	if err := noTrailing(r, h.op); err != nil {
		return err
	}
	key := clientKey(c.nc.RemoteAddr())
	if d := c.srv.guard.backoff.wait(c.ctx, key); d > 0 {
		c.log.Debug("authentication attempt delayed after repeated failures", "delay", d)
	}
	challenge, done, err := c.sasl.Evaluate(c.ctx, token)
	if err == nil && done {
		err = c.promote()
		if err != nil {
			c.send(c.errorFrame(h.stream, c.overConnections()))
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
		c.send(c.errorFrame(h.stream, bindings.Errorf(bindings.CodeAuthError, "%s", err.Error())))
	case done:
		c.srv.guard.backoff.succeeded(key)
		c.state = stateReady
		if c.srv.cfg.Authenticator.Class() == PasswordAuthenticatorClass {
			// Relayed requests carry the client's own identity to Cassandra.
			if user, pass, err := decodePlain(token); err == nil {
				c.creds = &credentials{user: user, password: pass}
				c.session.SetRole(user) // the role dohyo authorizes (proxy/authz.go)
			}
		}
		c.send(appendBytes(startFrame(getBuf(), c.version, 0, h.stream, opAuthSuccess), challenge))
	default:
		c.send(appendBytes(startFrame(getBuf(), c.version, 0, h.stream, opAuthChallenge), challenge))
	}
	return nil
}

func (c *conn) register(h header, r *rbuf) error {
	types := r.stringList()
	if r.err != nil {
		return protocolErrorf("Invalid REGISTER message: %v", r.err)
	}
	if err := noTrailing(r, h.op); err != nil {
		return err
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
			return protocolErrorf("Invalid event type %q in REGISTER", t)
		}
	}
	if want != 0 {
		c.evTypes.Or(want)
		c.srv.registerEvents(c)
	}
	c.send(startFrame(getBuf(), c.version, 0, h.stream, opReady))
	return nil
}
