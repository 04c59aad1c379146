package cqlserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
)

// testPKI is an in-test certificate authority.
type testPKI struct {
	t      testing.TB
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caPEM  []byte
	serial int64
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "dohyo test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	return &testPKI{t: t, ca: ca, caKey: key, caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), serial: 1}
}

// issue returns PEM certificate and key for cn; server certificates are
// valid for 127.0.0.1 and localhost.
func (p *testPKI) issue(cn string, server bool) (certPEM, keyPEM []byte) {
	p.t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.DNSNames = []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		p.t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		p.t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// files writes the server pair and the CA into dir.
func (p *testPKI) files(dir string) (cert, key, ca string) {
	p.t.Helper()
	c, k := p.issue("dohyo server", true)
	cert, key, ca = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key"), filepath.Join(dir, "ca.crt")
	for path, b := range map[string][]byte{cert: c, key: k, ca: p.caPEM} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			p.t.Fatal(err)
		}
	}
	return cert, key, ca
}

func (p *testPKI) pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	return pool
}

func TestTLS(t *testing.T) {
	pki := newTestPKI(t)
	dir := t.TempDir()
	cert, key, ca := pki.files(dir)

	t.Run("server only", func(t *testing.T) {
		cfg, err := LoadTLSConfig(cert, key, "")
		if err != nil {
			t.Fatal(err)
		}
		ts := newTestServer(t, func(c *Config) { c.TLS = cfg })
		addr := ts.listen(t)
		nc, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1"})
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
		cc, ck := pki.issue("app", false)
		pair, err := tls.X509KeyPair(cc, ck)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1", Certificates: []tls.Certificate{pair}})
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, nc, 5)
		c.startup("")
		c.rows("SELECT * FROM ks.t", nil)

		// Without a client certificate: refused (under TLS 1.3 the client
		// learns it at its first read).
		nc2, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1"})
		if err == nil {
			c2 := newClient(t, nc2, 4)
			c2.nc.SetDeadline(time.Now().Add(3 * time.Second))
			c2.send(&message.Options{})
			if f, err := c2.tryRead(); err == nil {
				t.Errorf("client without a certificate got %v", f.Body.Message)
			}
		}
		// A certificate from another CA: refused too.
		other := newTestPKI(t)
		oc, ok := other.issue("intruder", false)
		opair, _ := tls.X509KeyPair(oc, ok)
		nc3, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1", Certificates: []tls.Certificate{opair}})
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
	pki := newTestPKI(t)
	dir := t.TempDir()
	cert, key, _ := pki.files(dir)
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
	c, k := pki.issue("rotated", true)
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
