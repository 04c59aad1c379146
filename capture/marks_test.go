package capture

import (
	"fmt"
	"testing"
	"time"
)

// waitFor polls cond until it holds; the deadline only keeps a broken
// writer from hanging the test, it is not what the test checks.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestTimedFlushWritesWhatWasQueued checks the flush interval's promise
// against the writer's own counters: a record queued before a timed flush
// began is written by it. A timed flush may already be under way when a
// record is queued, so the second one after that is the one that must
// have written it. How late the ticks were (scheduling delay) is logged,
// not checked: on a busy machine it stretches the interval but breaks
// nothing.
func TestTimedFlushWritesWhatWasQueued(t *testing.T) {
	cfg := testConfig(t)
	cfg.Clock = time.Now
	cfg.FlushInterval = 5 * time.Millisecond
	w := newWriter(t, cfg)
	for i := uint64(1); i <= 20; i++ {
		w.Observe(ycsbRead(1, i, time.Now(), fmt.Sprintf("user%d", i)))
		queued := time.Now() // the record was queued before this
		k := w.Stats().TimedFlushes
		waitFor(t, "two timed flushes", func() bool { return w.Stats().TimedFlushes >= k+2 })
		st := w.Stats()
		if st.Records != i {
			t.Fatalf("after two timed flushes since record %d was queued, %d records are written", i, st.Records)
		}
		if st.WrittenThrough.Before(queued) {
			t.Fatalf("written-through mark %v is before record %d was queued (%v)", st.WrittenThrough, i, queued)
		}
	}
	t.Logf("longest wait of a tick for the writer: %v (flush interval %v)", w.Stats().MaxFlushDelay, cfg.FlushInterval)
}

// TestWrittenMarkWaitsForTheWrite checks that the written-through mark
// covers a record only once the write(2) of its frame has returned: while
// the frame is stuck in a write, the mark stays before the record, and
// once the write is let through it passes it. A mark published when the
// record is encoded, or before the write, fails this.
func TestWrittenMarkWaitsForTheWrite(t *testing.T) {
	cfg := testConfig(t)
	cfg.Clock = time.Now
	cfg.FlushInterval = time.Millisecond
	sink := gateSegments(&cfg)
	w := newWriter(t, cfg)

	w.Observe(ycsbRead(1, 1, time.Now(), "user1"))
	first := time.Now()
	flushWriter(t, w)
	if st := w.Stats(); st.WrittenThrough.Before(first) || st.SyncedThrough.Before(first) {
		t.Fatalf("after Flush: marks %v / %v, want both at or after %v", st.WrittenThrough, st.SyncedThrough, first)
	}

	sink().hold()
	w.Observe(ycsbRead(1, 2, time.Now(), "user2"))
	second := time.Now() // the record was queued before this
	select {
	case <-sink().entered:
	case <-time.After(time.Minute):
		t.Fatal("the writer never tried to write the second record's frame")
	}
	st := w.Stats()
	if st.WrittenThrough.After(second) {
		t.Errorf("written-through mark %v passed the second record (queued before %v) while its frame is stuck in write", st.WrittenThrough, second)
	}
	if st.Records != 1 {
		t.Errorf("%d records written while the second one's write is stuck, want 1", st.Records)
	}

	sink().releaseWrites()
	waitFor(t, "the second record to be written", func() bool { return w.Stats().Records == 2 })
	if st := w.Stats(); st.WrittenThrough.Before(second) {
		t.Errorf("after the write: written-through mark %v, want at or after %v", st.WrittenThrough, second)
	}
	if st := w.Stats(); !st.SyncedThrough.Before(second) {
		t.Errorf("synced-through mark %v passed the second record without an fsync", st.SyncedThrough)
	}
	flushWriter(t, w)
	if st := w.Stats(); st.SyncedThrough.Before(second) {
		t.Errorf("after Flush (fsync): synced-through mark %v, want at or after %v", st.SyncedThrough, second)
	}
}
