package replay

import (
	"context"
	"errors"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// describedTarget is a target that describes its server itself (a CQL
// endpoint does) and names its version.
type describedTarget struct {
	Target
	gotKeyspaces []string
	version      string
	versionErr   error
}

func (d *describedTarget) DescribeServer(_ context.Context, ks []string) (bindings.ServerDescription, error) {
	d.gotKeyspaces = ks
	return bindings.ServerDescription{Product: "Apache Cassandra", Settings: map[string]string{"consistency": "ONE"}},
		errors.New("replication of ks2 unknown")
}

func (d *describedTarget) Version(context.Context) (string, error) { return d.version, d.versionErr }

// plainTarget can say nothing about its server.
type plainTarget struct{ Target }

func TestURLSettings(t *testing.T) {
	got := URLSettings("cassandra://u:pw@h:9042/?consistency=QUORUM&password=x&api_key=y&dc=a&dc=b")
	if len(got) != 2 || got["consistency"] != "QUORUM" || got["dc"] != "a,b" {
		t.Errorf("settings %v: want consistency and dc, no secrets", got)
	}
	if got := URLSettings("::bad"); len(got) != 0 {
		t.Errorf("bad URL: %v", got)
	}
}

// TestDescribeTargets: each target's description is merged into its
// settings (after the URL's), with the keyspaces of every run, once;
// describe errors and unknown versions are reported, never dropped.
func TestDescribeTargets(t *testing.T) {
	d1 := &describedTarget{version: "5.0.2"}
	d2 := &describedTarget{versionErr: errors.New("timeout")}
	d3 := &describedTarget{versionErr: ErrNoVersion}
	rep := &Report{
		Runs: []*Run{{Keyspaces: []string{"ks1", "ks2"}}, {Keyspaces: []string{"ks2", "ks3"}}},
		Conditions: Conditions{Targets: []TargetInfo{
			{Name: "t1", Settings: map[string]string{"consistency": "QUORUM", "dc": "a"}}, {Name: "t2"}, {Name: "t3"}, {Name: "t4"},
		}},
	}
	DescribeTargets(t.Context(), rep, []NamedTarget{{Name: "t1", Target: d1}, {Name: "t2", Target: d2},
		{Name: "t3", Target: d3}, {Name: "t4", Target: plainTarget{}}})
	if want := []string{"ks1", "ks2", "ks3"}; len(d1.gotKeyspaces) != 3 || d1.gotKeyspaces[0] != want[0] || d1.gotKeyspaces[2] != want[2] {
		t.Errorf("described keyspaces %v, want %v", d1.gotKeyspaces, want)
	}
	ts := rep.Conditions.Targets
	if ts[0].Server != "Apache Cassandra 5.0.2" || ts[0].Settings["consistency"] != "ONE" || ts[0].Settings["dc"] != "a" ||
		ts[0].Settings["describe_error"] != "replication of ks2 unknown" {
		t.Errorf("t1: %+v", ts[0])
	}
	if ts[1].Server != "Apache Cassandra unknown (timeout)" || ts[1].Settings["consistency"] != "ONE" {
		t.Errorf("t2: %+v", ts[1])
	}
	if ts[2].Server != "Apache Cassandra" {
		t.Errorf("t3 (no version): %+v", ts[2])
	}
	if ts[3].Server != "unknown" || ts[3].Settings == nil || len(ts[3].Settings) != 0 {
		t.Errorf("t4 (cannot describe): %+v", ts[3])
	}
}
