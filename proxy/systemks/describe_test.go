package systemks

import "testing"

func TestIsDescribe(t *testing.T) {
	for q, want := range map[string]bool{
		"DESCRIBE KEYSPACES": true, "  desc table ks.t;": true, "DESC": true, "describe;": true,
		"DESCRIPTION": false, "SELECT 1": false, "des": false, "": false,
	} {
		if got := IsDescribe(q); got != want {
			t.Errorf("IsDescribe(%q) = %v", q, got)
		}
	}
}
