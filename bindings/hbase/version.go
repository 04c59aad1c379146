package hbase

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/proto"
)

// ServerVersion returns the HBase version of the region servers, read from
// their ZooKeeper znodes (<root>/rs/<server>), where each one publishes a
// RegionServerInfo with its VersionInfo. Distinct versions are listed,
// sorted, comma-separated.
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	return zkServerVersion(ctx, s.cfg.ZooKeeper, s.cfg.ZKRoot)
}

func zkServerVersion(ctx context.Context, quorum, root string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, _, err := zk.Connect(strings.Split(quorum, ","), 5*time.Second, zk.WithLogger(nopZKLogger{}))
	if err != nil {
		return "", fmt.Errorf("hbase: server version: %w", err)
	}
	type result struct {
		v   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := readRSVersions(conn, path.Join(root, "rs"))
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		conn.Close()
		if r.err != nil {
			return "", fmt.Errorf("hbase: server version: %w", r.err)
		}
		return r.v, nil
	case <-ctx.Done():
		conn.Close() // fails the pending requests
		return "", fmt.Errorf("hbase: server version: %w", ctx.Err())
	}
}

func readRSVersions(conn *zk.Conn, dir string) (string, error) {
	kids, _, err := conn.Children(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	var vs []string
	for _, k := range kids {
		data, _, err := conn.Get(path.Join(dir, k))
		if err != nil {
			continue // the server went away since the listing
		}
		if v, err := parseRSZnode(data); err == nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return "", fmt.Errorf("no region server under %s published a version", dir)
	}
	slices.Sort(vs)
	return strings.Join(slices.Compact(vs), ", "), nil
}

// parseRSZnode reads HBase's znode framing — 0xFF, a 4-byte metadata
// length, the metadata, "PBUF" — and then a RegionServerInfo.
func parseRSZnode(data []byte) (string, error) {
	if len(data) < 5 || data[0] != 0xFF {
		return "", errors.New("not an HBase znode")
	}
	n := int(binary.BigEndian.Uint32(data[1:5]))
	if n < 0 || 5+n+4 > len(data) || string(data[5+n:5+n+4]) != "PBUF" {
		return "", errors.New("no protobuf payload")
	}
	var info pb.RegionServerInfo
	if err := proto.Unmarshal(data[5+n+4:], &info); err != nil {
		return "", err
	}
	v := info.GetVersionInfo().GetVersion()
	if v == "" {
		return "", errors.New("no version")
	}
	return v, nil
}

type nopZKLogger struct{}

func (nopZKLogger) Printf(string, ...any) {}
