package testpki

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
)

// CA is a certificate authority living for one test.
type CA struct {
	tb     testing.TB
	Cert   *x509.Certificate
	PEM    []byte // the CA certificate, PEM-encoded
	key    *ecdsa.PrivateKey
	serial int64
}

// New creates a CA named name.
func New(tb testing.TB, name string) *CA {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return &CA{tb: tb, Cert: cert, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: key, serial: 1}
}

// Issue returns a PEM certificate and key for cn signed by the CA: a
// server certificate (valid for 127.0.0.1 and localhost) or a client one.
func (ca *CA) Issue(cn string, server bool) (certPEM, keyPEM []byte) {
	ca.tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		ca.tb.Fatal(err)
	}
	ca.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.DNSNames = []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		ca.tb.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		ca.tb.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// IssueFiles writes Issue's certificate and key as dir/name.crt and
// dir/name.key and returns their paths.
func (ca *CA) IssueFiles(dir, name string, server bool) (certFile, keyFile string) {
	ca.tb.Helper()
	c, k := ca.Issue(name, server)
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	ca.write(certFile, c)
	ca.write(keyFile, k)
	return certFile, keyFile
}

// File writes the CA certificate as dir/ca.crt and returns its path.
func (ca *CA) File(dir string) string {
	ca.tb.Helper()
	path := filepath.Join(dir, "ca.crt")
	ca.write(path, ca.PEM)
	return path
}

func (ca *CA) write(path string, b []byte) {
	ca.tb.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		ca.tb.Fatal(err)
	}
}

// Pool is a pool holding the CA certificate.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// ClientTLS is a client configuration trusting the CA, for a server on
// 127.0.0.1.
func (ca *CA) ClientTLS() *tls.Config {
	return &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1"}
}
