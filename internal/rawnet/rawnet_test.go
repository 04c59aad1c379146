package rawnet

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/internal/testpki"
)

// pair returns a wrapped client connection and the raw server side.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		c   net.Conn
		err error
	}
	acc := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		acc <- res{c, err}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	r := <-acc
	if r.err != nil {
		t.Fatal(r.err)
	}
	w, ok := Wrap(c).(*Conn)
	if !ok {
		t.Fatalf("Wrap(%T) did not wrap", c)
	}
	t.Cleanup(func() { w.Close(); r.c.Close() })
	return w, r.c
}

func TestWrapLeavesOtherConns(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := Wrap(a); got != a {
		t.Fatalf("Wrap(pipe) = %T, want the pipe itself", got)
	}
}

func TestRoundTripAndEOF(t *testing.T) {
	c, peer := pair(t)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(peer, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("peer read %q, %v", buf, err)
	}
	if _, err := peer.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Fatalf("empty read = %d, %v", n, err)
	}
	peer.Close()
	if n, err := c.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("read after peer close = %d, %v; want 0, EOF", n, err)
	}
}

// A write larger than the socket buffers completes only as the peer reads:
// the partial writes and the waits for writability in between.
func TestLargeWriteWaitsForReader(t *testing.T) {
	c, peer := pair(t)
	c.SetWriteBuffer(4096)
	want := make([]byte, 2<<20)
	rand.Read(want)
	got := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		chunk := make([]byte, 4000)
		for b.Len() < len(want) {
			n, err := peer.Read(chunk)
			b.Write(chunk[:n])
			if err != nil {
				break
			}
		}
		got <- b.Bytes()
	}()
	n, err := c.Write(want)
	if err != nil || n != len(want) {
		t.Fatalf("write = %d, %v", n, err)
	}
	if !bytes.Equal(<-got, want) {
		t.Fatal("peer read different bytes")
	}
}

func TestReadDeadline(t *testing.T) {
	c, _ := pair(t)
	dl := time.Now().Add(20 * time.Millisecond)
	c.SetReadDeadline(dl)
	_, err := c.Read(make([]byte, 8))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err %v is not a net.Error timeout", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" {
		t.Fatalf("err %v is not a read *net.OpError", err)
	}
	// That it ended at all is the read returning (the peer never writes);
	// that it did not end early is a fact against the deadline itself.
	if now := time.Now(); now.Before(dl) {
		t.Fatalf("the read ended %v before its deadline", dl.Sub(now))
	}
}

func TestWriteDeadline(t *testing.T) {
	c, _ := pair(t) // the peer never reads
	c.SetWriteBuffer(4096)
	c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := c.Write(make([]byte, 64<<20))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if n >= 64<<20 {
		t.Fatalf("wrote all %d bytes to a peer that never reads", n)
	}
}

func TestCloseEndsBlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		done <- err
	}()
	// Whether the read is already waiting in the poller or not yet
	// started, Close ends it with net.ErrClosed.
	c.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("err = %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after close: %v, want net.ErrClosed", err)
	}
}

func TestWriteToResetPeer(t *testing.T) {
	c, peer := pair(t)
	peer.(*net.TCPConn).SetLinger(0)
	peer.Close() // RST
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = c.Write(make([]byte, 1<<16))
	}
	var se *os.SyscallError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a syscall error (EPIPE/ECONNRESET)", err)
	}
}

// Concurrent readers and writers on one connection, as net.Conn allows.
func TestConcurrentUse(t *testing.T) {
	c, peer := pair(t)
	const writers, each = 4, 2000
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				if _, err := c.Write([]byte{byte(i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	echoed := make(chan int, 1)
	go func() {
		n, _ := io.Copy(peer, io.LimitReader(peer, writers*each))
		peer.(*net.TCPConn).CloseWrite() // the readers then see EOF
		echoed <- int(n)
	}()
	var mu sync.Mutex
	total := 0
	var rg sync.WaitGroup
	for i := 0; i < 2; i++ {
		rg.Add(1)
		go func() {
			defer rg.Done()
			buf := make([]byte, 100)
			for {
				n, err := c.Read(buf)
				mu.Lock()
				total += n
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := <-echoed; n != writers*each {
		t.Fatalf("peer echoed %d bytes", n)
	}
	rg.Wait()
	if total != writers*each {
		t.Fatalf("read %d bytes back, want %d", total, writers*each)
	}
}

// TLS over a wrapped listener: the handshake and records go through the
// raw reads and writes.
func TestTLSOverListener(t *testing.T) {
	ca := testpki.New(t, "rawnet-test")
	certPEM, keyPEM := ca.Issue("127.0.0.1", true)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tln := tls.NewListener(Listener{Listener: ln}, &tls.Config{Certificates: []tls.Certificate{cert}})
	defer tln.Close()
	go func() {
		c, err := tln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), ca.ClientTLS())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := bytes.Repeat([]byte("dohyo"), 10000)
	go c.Write(msg)
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("echo over TLS: %v", err)
	}
}
