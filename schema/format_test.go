package schema

import "testing"

func TestFormatSettings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FormatReplication(map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"}), "SimpleStrategy replication_factor=3"},
		{FormatReplication(map[string]string{"class": "NetworkTopologyStrategy", "dc2": "2", "dc1": "3"}), "NetworkTopologyStrategy dc1=3 dc2=2"},
		{FormatCompression(map[string]string{"class": "org.apache.cassandra.io.compress.LZ4Compressor", "chunk_length_in_kb": "16"}), "LZ4Compressor chunk_length_in_kb=16"},
		{FormatCompression(map[string]string{"enabled": "false"}), "off"},
		{FormatCompression(nil), "off"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
