package cassandra_test

import (
	"regexp"
	"testing"
)

func TestServerVersion(t *testing.T) {
	b := openBackend(t, testConfig(t))
	v, err := b.ServerVersion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d+\.\d+`).MatchString(v) {
		t.Fatalf("got %q, want a release version", v)
	}
	if v != b.ReleaseVersion() {
		t.Errorf("ServerVersion %q, ReleaseVersion at open %q: want equal on a one-node cluster", v, b.ReleaseVersion())
	}
}
