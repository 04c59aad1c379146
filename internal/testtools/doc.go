// Package testtools finds the external programs integration tests run
// (tcpdump) and the privileges they need. Without them a test is skipped,
// except under CI=true, where `make test` must run everything and their
// absence is a failure.
package testtools
