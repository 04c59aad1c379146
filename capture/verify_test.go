package capture

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyVerdicts: clean and cleanly torn segments pass; an empty file
// and a segment with a corrupted trailer are problems with a message.
func TestVerifyVerdicts(t *testing.T) {
	data := multiFrameSegment(t, 3, 4)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := append([]byte(nil), data...)
	corrupt[len(corrupt)-1] ^= 0x5A // inside the trailer's payload
	cases := []struct {
		name    string
		b       []byte
		ok      bool
		wantErr string
	}{
		{"clean.seg", data, true, ""},
		{"torn.seg", data[:len(data)-7], true, ""},
		{"empty.seg", nil, false, "empty file"},
		{"trailer.seg", corrupt, false, "checksum mismatch"},
	}
	for _, tc := range cases {
		p := write(tc.name, tc.b)
		rep, err := Verify(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := rep.Segments[0]
		if c.OK() != tc.ok || rep.OK() != tc.ok {
			t.Errorf("%s: OK = %v, want %v (%+v)", tc.name, c.OK(), tc.ok, c)
		}
		if tc.wantErr != "" && (c.Err == nil || !strings.Contains(c.Err.Error(), tc.wantErr)) {
			t.Errorf("%s: Err = %v, want %q", tc.name, c.Err, tc.wantErr)
		}
		j, _ := json.Marshal(c)
		if tc.wantErr != "" && !strings.Contains(string(j), tc.wantErr) {
			t.Errorf("%s: JSON %s lacks the error", tc.name, j)
		}
	}
}
