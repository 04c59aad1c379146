// Command relayfloor measures the floor under any proxy's CPU cost on this
// machine: it relays bytes between each connection it accepts and one it
// dials to -to, nothing else (no parsing, no backend protocol). Put in
// front of dohyo's CQL listener it moves the same requests and answers in
// the same pattern as dohyo's two sockets per request do, so its CPU per
// request is what a proxy pays for the sockets alone (system calls,
// loopback TCP, the runtime's poller and scheduler): bench/hbase-native.sh
// --floor reports it next to dohyo's and HBase's.
//
// Like dohyo's own sockets (its CQL listener and its HBase connections),
// the relay's go through internal/rawnet; each direction is one goroutine
// reading into a 64 KiB buffer and writing what it read, as a relaying
// proxy does (no splice: a proxy that looks at its traffic cannot use it).
//
//	relayfloor -listen 127.0.0.1:0 -to 127.0.0.1:9042
//
// prints "relay: ADDR" on stdout once it listens, and runs until killed.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/dohyo/dohyo/internal/rawnet"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to accept connections on")
	to := flag.String("to", "", "address each accepted connection is relayed to")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *to == "" {
		fmt.Fprintln(os.Stderr, "relayfloor: -to is required")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Error("listen", "err", err)
		os.Exit(1)
	}
	fmt.Printf("relay: %s\n", ln.Addr())
	if err := serve(rawnet.Listener{Listener: ln}, *to, log); err != nil {
		log.Error("accept", "err", err)
		os.Exit(1)
	}
}

// serve relays every accepted connection until the listener fails.
func serve(ln net.Listener, to string, log *slog.Logger) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return fmt.Errorf("relayfloor: %w", err)
		}
		go relay(c, to, log)
	}
}

// relay connects c to a new connection to addr and copies both ways until
// either side closes, then closes both.
func relay(c net.Conn, addr string, log *slog.Logger) {
	defer c.Close()
	d, err := net.Dial("tcp", addr)
	if err != nil {
		log.Warn("dial", "to", addr, "err", err)
		return
	}
	b := rawnet.Wrap(d)
	done := make(chan struct{})
	go func() {
		pump(b, c, log)
		// Either side's end ends both: closing both unblocks the other
		// direction's read.
		_ = c.Close()
		_ = b.Close()
		close(done)
	}()
	pump(c, b, log)
	_ = c.Close()
	_ = b.Close()
	<-done
}

// pump writes to dst what it reads from src until src ends or either
// fails.
func pump(dst io.Writer, src io.Reader, log *slog.Logger) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				log.Debug("write", "err", werr)
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				log.Debug("read", "err", err)
			}
			return
		}
	}
}
