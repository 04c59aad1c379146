// Package testpki is an in-test certificate authority for the TLS tests of
// the CQL server and of dohyo serve: a CA, certificates it signs (server
// certificates valid for 127.0.0.1 and localhost), and the files and
// configurations tests need. It is imported by tests only.
package testpki
