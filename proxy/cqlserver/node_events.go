package cqlserver

import (
	"fmt"
	"net"
	"strconv"

	"github.com/dohyo/dohyo/cql/wire"
)

// Event types a connection registers for (conn.evTypes).
const (
	eventSchema uint32 = 1 << iota
	eventTopology
	eventStatus
)

// Node event changes, spelled as in the native protocol.
const (
	NodeNew     = "NEW_NODE"     // TOPOLOGY_CHANGE: an instance joined the tier
	NodeRemoved = "REMOVED_NODE" // TOPOLOGY_CHANGE: an instance left cleanly
	NodeUp      = "UP"           // STATUS_CHANGE: a known instance is back
	NodeDown    = "DOWN"         // STATUS_CHANGE: an instance stopped heartbeating
)

// PushNodeEvent sends a TOPOLOGY_CHANGE (NodeNew, NodeRemoved) or
// STATUS_CHANGE (NodeUp, NodeDown) event about the instance at addr
// (host:port, an IP host) to the connections registered for it.
func (s *Server) PushNodeEvent(change, addr string) error {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("cqlserver: node event address %q: %w", addr, err)
	}
	ip, port := net.ParseIP(host), 0
	if port, err = strconv.Atoi(p); err != nil || ip == nil {
		return fmt.Errorf("cqlserver: node event address %q is not IP:port", addr)
	}
	typ, bit := "TOPOLOGY_CHANGE", eventTopology
	switch change {
	case NodeNew, NodeRemoved:
	case NodeUp, NodeDown:
		typ, bit = "STATUS_CHANGE", eventStatus
	default:
		return fmt.Errorf("cqlserver: unknown node event %q", change)
	}
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	for _, c := range s.eventTargets(bit) {
		f := wire.StartFrame(nil, c.version, 0, -1, wire.OpEvent)
		f = wire.AppendString(f, typ)
		f = wire.AppendString(f, change)
		f = append(f, byte(len(ip)))
		f = append(f, ip...)
		f = wire.AppendInt(f, int32(port))
		c.pushEventFrame(f)
	}
	return nil
}

// eventTargets returns the live connections registered for event bit.
func (s *Server) eventTargets(bit uint32) []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*conn, 0, len(s.evConns))
	for c := range s.evConns {
		if c.evTypes.Load()&bit != 0 {
			out = append(out, c)
		}
	}
	return out
}
