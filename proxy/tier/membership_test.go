package tier

import (
	"slices"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy/cqlserver"
)

func TestLiveMembers(t *testing.T) {
	now := time.Unix(1000, 0)
	all := []bindings.TierMember{
		{Addr: "10.0.0.3:9042", SchemaVersion: "c", Heartbeat: now.Add(-time.Second)},
		{Addr: "10.0.0.1:9042", SchemaVersion: "a", Heartbeat: now}, // self
		{Addr: "10.0.0.2:9042", SchemaVersion: "b", Heartbeat: now.Add(-2999 * time.Millisecond)},
		{Addr: "10.0.0.4:9042", SchemaVersion: "d", Heartbeat: now.Add(-3 * time.Second)}, // dead
	}
	got := liveMembers(all, "10.0.0.1:9042", now, 3*time.Second)
	want := []cqlserver.Member{{Addr: "10.0.0.2:9042", SchemaVersion: "b"}, {Addr: "10.0.0.3:9042", SchemaVersion: "c"}}
	if !slices.Equal(got, want) {
		t.Fatalf("live members %v, want %v", got, want)
	}
}

func TestMembershipTrack(t *testing.T) {
	var got []string
	m := &Membership{onChange: func(change, addr string) { got = append(got, change+" "+addr) }}
	now := time.Unix(1000, 0)
	beat := func(rows ...bindings.TierMember) {
		m.track(append(rows, bindings.TierMember{Addr: "self:1", Heartbeat: now}), "self:1", now, 3*time.Second)
	}
	fresh := func(a string) bindings.TierMember { return bindings.TierMember{Addr: a, Heartbeat: now} }
	stale := func(a string) bindings.TierMember {
		return bindings.TierMember{Addr: a, Heartbeat: now.Add(-time.Minute)}
	}
	beat(fresh("a:1"), stale("b:1")) // first listing: no events
	beat(fresh("a:1"), stale("b:1"), fresh("c:1"))
	beat(stale("a:1"), fresh("b:1"), fresh("c:1"))
	beat(fresh("b:1"))
	want := []string{"NEW_NODE c:1", "DOWN a:1", "UP b:1", "REMOVED_NODE a:1", "REMOVED_NODE c:1"}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
