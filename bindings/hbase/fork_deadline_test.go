package hbase

import (
	"testing"
	"time"

	"github.com/tsuna/gohbase/region"
)

// TestForkReadDeadline: the region client's read deadline (armed lazily,
// DOHYO-PATCHES.md) fails a call the region server does not answer, and
// no earlier than the read timeout after it was sent, and never fails an
// idle connection: a Get sent after several idle read timeouts is
// answered on the same connection.
//
// The read timeout is a second, so that an answered Get's round trip on a
// loaded machine stays well inside it; that the unanswered Get fails at
// all is checked against awaitResult's 30 s bound, not a tight one.
func TestForkReadDeadline(t *testing.T) {
	const readTimeout = time.Second
	addr, conns := fakeRegionServer(t)
	rc := dialFakeTimeout(t, addr, readTimeout)
	srv, ok := <-conns
	if !ok {
		t.Fatal("fake region server: no connection")
	}
	get := func(row string) (time.Duration, error) {
		t.Helper()
		g := fakeGet(t, t.Context(), row)
		start := time.Now()
		rc.QueueRPC(g)
		id, got, err := readGetRequest(srv)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != row {
			t.Fatalf("server read a Get of %q, want %q", got, row)
		}
		if row != "unanswered" {
			if _, err := srv.Write(getResponse(t, id, got, []byte("v-"+row))); err != nil {
				t.Fatal(err)
			}
		}
		r := awaitResult(t, g)
		return time.Since(start), r.Error
	}
	if _, err := get("first"); err != nil {
		t.Fatalf("first Get: %v", err)
	}
	// Idle for four read timeouts: the deadline left armed by the last send
	// passes with nothing in flight, which must not fail the connection.
	// (The wait is the behaviour under test, not synchronisation.)
	time.Sleep(3 * readTimeout)
	for i := range 3 {
		if _, err := get("after-idle"); err != nil {
			t.Fatalf("Get %d after idle: %v", i, err)
		}
	}
	// Gets every quarter of a read timeout for two and a half read
	// timeouts, each answered: the deadline moves along and never fires.
	for range 10 {
		if _, err := get("steady"); err != nil {
			t.Fatalf("steady Get: %v", err)
		}
		time.Sleep(readTimeout / 4)
	}
	el, err := get("unanswered")
	if err != region.ErrClientClosed {
		t.Fatalf("unanswered Get: %v, want the client failed (%v)", err, region.ErrClientClosed)
	}
	// Not before the read timeout (a fact: the deadline is armed at the
	// send, after start); that it fired at all, awaitResult checked.
	if el < readTimeout {
		t.Errorf("unanswered Get failed after %v, before the %v read timeout", el, readTimeout)
	}
}
