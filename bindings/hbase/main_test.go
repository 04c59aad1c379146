package hbase

import (
	"os"
	"testing"

	"github.com/sirupsen/logrus"
)

// TestMain quiets gohbase, which logs every region it locates at Info level
// through logrus's global logger (the conformance run locates thousands).
func TestMain(m *testing.M) {
	logrus.SetLevel(logrus.WarnLevel)
	os.Exit(m.Run())
}
