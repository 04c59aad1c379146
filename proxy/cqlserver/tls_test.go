package cqlserver

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/dohyo/dohyo/internal/testpki"
)

// serverFiles writes a server certificate and key signed by pki, and the
// CA certificate, into dir.
func serverFiles(pki *testpki.CA, dir string) (cert, key, ca string) {
	cert, key = pki.IssueFiles(dir, "server", true)
	return cert, key, pki.File(dir)
}

func TestTLS(t *testing.T) {
	pki := testpki.New(t, "dohyo test CA")
	dir := t.TempDir()
	cert, key, ca := serverFiles(pki, dir)

	t.Run("server only", func(t *testing.T) {
		cfg, err := LoadTLSConfig(cert, key, "")
		if err != nil {
			t.Fatal(err)
		}
		ts := newTestServer(t, func(c *Config) { c.TLS = cfg })
		addr := ts.listen(t)
		nc, err := tls.Dial("tcp", addr, pki.ClientTLS())
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, nc, 4)
		c.startup("lz4")
		c.rows("SELECT * FROM ks.t", nil)

		// A plain-text client gets no CQL answer.
		plain := ts.tcpClient(t, addr, 4)
		plain.nc.SetDeadline(time.Now().Add(3 * time.Second))
		plain.send(&message.Options{})
		if f, err := plain.tryRead(); err == nil {
			t.Errorf("plain-text client got %v", f.Body.Message)
		}
	})

	t.Run("mutual", func(t *testing.T) {
		cfg, err := LoadTLSConfig(cert, key, ca)
		if err != nil {
			t.Fatal(err)
		}
		ts := newTestServer(t, func(c *Config) { c.TLS = cfg })
		addr := ts.listen(t)
		cc, ck := pki.Issue("app", false)
		pair, err := tls.X509KeyPair(cc, ck)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pki.Pool(), ServerName: "127.0.0.1", Certificates: []tls.Certificate{pair}})
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, nc, 5)
		c.startup("")
		c.rows("SELECT * FROM ks.t", nil)

		// Without a client certificate: refused (under TLS 1.3 the client
		// learns it at its first read).
		nc2, err := tls.Dial("tcp", addr, pki.ClientTLS())
		if err == nil {
			c2 := newClient(t, nc2, 4)
			c2.nc.SetDeadline(time.Now().Add(3 * time.Second))
			c2.send(&message.Options{})
			if f, err := c2.tryRead(); err == nil {
				t.Errorf("client without a certificate got %v", f.Body.Message)
			}
		}
		// A certificate from another CA: refused too.
		other := testpki.New(t, "dohyo test CA")
		oc, ok := other.Issue("intruder", false)
		opair, _ := tls.X509KeyPair(oc, ok)
		nc3, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pki.Pool(), ServerName: "127.0.0.1", Certificates: []tls.Certificate{opair}})
		if err == nil {
			c3 := newClient(t, nc3, 4)
			c3.nc.SetDeadline(time.Now().Add(3 * time.Second))
			c3.send(&message.Options{})
			if f, err := c3.tryRead(); err == nil {
				t.Errorf("client with a foreign certificate got %v", f.Body.Message)
			}
		}
	})
}

func TestTLSCertificateReload(t *testing.T) {
	pki := testpki.New(t, "dohyo test CA")
	dir := t.TempDir()
	cert, key, _ := serverFiles(pki, dir)
	cfg, err := LoadTLSConfig(cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	serial := func() int64 {
		t.Helper()
		c, err := cfg.GetCertificate(&tls.ClientHelloInfo{})
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		return leaf.SerialNumber.Int64()
	}
	before := serial()
	c, k := pki.Issue("rotated", true)
	later := time.Now().Add(time.Minute)
	for path, b := range map[string][]byte{cert: c, key: k} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, later, later)
	}
	if after := serial(); after == before {
		t.Errorf("certificate serial %d unchanged after rotation", after)
	}
	// A half-written rotation keeps the last good pair.
	os.WriteFile(key, []byte("garbage"), 0o600)
	os.Chtimes(key, later.Add(time.Minute), later.Add(time.Minute))
	if _, err := cfg.GetCertificate(&tls.ClientHelloInfo{}); err != nil {
		t.Errorf("broken key file: %v, want the last good pair", err)
	}
	if _, err := LoadTLSConfig(cert, filepath.Join(dir, "missing.key"), ""); err == nil {
		t.Error("missing key file accepted")
	}
}
