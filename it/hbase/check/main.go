// Command check proves that a standalone HBase answers real client calls:
// through gohbase it reads the cluster status (and insists that every server
// advertises 127.0.0.1, since gohbase dials what the servers publish), creates
// a throw-away table, writes and reads back one cell, then disables and
// deletes the table. It exits non-zero on the first failure. it/hbase/run.sh
// uses it as the last step of "wait".
//
// -assigned first waits (until -timeout) for every region hbase:meta lists
// to be settled: none in transition, and each open one on a live region
// server of the same start code, so a killed server's regions count as
// unserved until they are reassigned. The cluster script's "wait" uses it,
// so a region-server fault ends when the cluster serves every region again.
//
// -mode write -table T creates T (if needed) and writes one known cell and
// leaves it there; -mode read -table T reads that cell back. Together they
// check that data survives a server restart.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
)

func main() {
	zkDefault := os.Getenv("DOHYO_TEST_HBASE_ZK")
	if zkDefault == "" {
		zkDefault = "127.0.0.1:2181"
	}
	zk := flag.String("zk", zkDefault, "ZooKeeper quorum (dial 127.0.0.1, not localhost)")
	timeout := flag.Duration("timeout", 60*time.Second, "overall deadline")
	mode := flag.String("mode", "roundtrip", "roundtrip, write or read")
	assigned := flag.Bool("assigned", false, "first wait until every region is open on a live server")
	table := flag.String("table", "", "table for -mode write/read")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	start := time.Now()
	var err error
	if *assigned {
		err = waitAssigned(ctx, *zk)
	}
	switch {
	case err != nil:
	case *mode == "roundtrip":
		err = run(ctx, *zk)
	case *mode == "write" || *mode == "read":
		if *table == "" {
			err = errors.New("-table is required with -mode " + *mode)
			break
		}
		err = keep(ctx, *zk, *table, *mode == "write")
	default:
		err = fmt.Errorf("unknown -mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hbase check: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("hbase check: ok (%s)\n", time.Since(start).Round(time.Millisecond))
}

func run(ctx context.Context, zk string) error {
	admin := gohbase.NewAdminClient(zk)
	if err := checkStatus(ctx, admin); err != nil {
		return err
	}

	table := fmt.Sprintf("dohyo_it_check_%d_%d", os.Getpid(), time.Now().UnixNano())
	families := map[string]map[string]string{"cf": nil}
	if err := admin.CreateTable(hrpc.NewCreateTable(ctx, []byte(table), families)); err != nil {
		return fmt.Errorf("create table %s: %w", table, err)
	}
	dataErr := putGet(ctx, zk, table, []byte(fmt.Sprintf("v%d", time.Now().UnixNano())), true)
	if err := admin.DisableTable(hrpc.NewDisableTable(ctx, []byte(table))); err != nil {
		return errors.Join(dataErr, fmt.Errorf("disable table %s: %w", table, err))
	}
	if err := admin.DeleteTable(hrpc.NewDeleteTable(ctx, []byte(table))); err != nil {
		return errors.Join(dataErr, fmt.Errorf("delete table %s: %w", table, err))
	}
	return dataErr
}

// clusterStatus asks the master for the cluster status; ClusterStatus takes
// no context, so the call runs in a goroutine and ctx's deadline still holds.
func clusterStatus(ctx context.Context, admin gohbase.AdminClient) (*pb.ClusterStatus, error) {
	type result struct {
		st  *pb.ClusterStatus
		err error
	}
	ch := make(chan result, 1)
	go func() {
		st, err := admin.ClusterStatus()
		ch <- result{st, err}
	}()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("cluster status: %w", ctx.Err())
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("cluster status: %w", r.err)
		}
		return r.st, nil
	}
}

func checkStatus(ctx context.Context, admin gohbase.AdminClient) error {
	st, err := clusterStatus(ctx, admin)
	if err != nil {
		return err
	}
	if len(st.GetLiveServers()) == 0 {
		return errors.New("cluster status: no live region servers")
	}
	var hosts []string
	if m := st.GetMaster(); m != nil {
		hosts = append(hosts, m.GetHostName())
	}
	for _, s := range st.GetLiveServers() {
		hosts = append(hosts, s.GetServer().GetHostName())
	}
	for _, h := range hosts {
		if h != "127.0.0.1" {
			return fmt.Errorf("cluster status: a server advertises %q, want 127.0.0.1", h)
		}
	}
	return nil
}

// waitAssigned polls every 500 ms until every region is settled (see
// unsettled) or ctx ends, and then says why it is not.
func waitAssigned(ctx context.Context, zk string) error {
	admin := gohbase.NewAdminClient(zk)
	client := gohbase.NewClient(zk)
	defer client.Close()
	for {
		why, err := unsettled(ctx, admin, client)
		if err == nil && why == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("regions: %w", err)
			}
			return fmt.Errorf("regions not settled: %s", why)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// unsettled says which region is not settled ("" when all are): the master
// reports regions in transition, or hbase:meta lists a region in a
// transitional state, or open on a server that is not live with the
// recorded start code (a killed server whose crash is not yet processed).
func unsettled(ctx context.Context, admin gohbase.AdminClient, client gohbase.Client) (string, error) {
	st, err := clusterStatus(ctx, admin)
	if err != nil {
		return "", err
	}
	if rit := st.GetRegionsInTransition(); len(rit) > 0 {
		return fmt.Sprintf("%d region(s) in transition", len(rit)), nil
	}
	live := map[string]bool{}
	for _, s := range st.GetLiveServers() {
		sn := s.GetServer()
		live[fmt.Sprintf("%s:%d,%d", sn.GetHostName(), sn.GetPort(), sn.GetStartCode())] = true
	}
	scan, err := hrpc.NewScanStr(ctx, "hbase:meta", hrpc.Families(map[string][]string{"info": nil}))
	if err != nil {
		return "", err
	}
	sc := client.Scan(scan)
	defer sc.Close()
	for {
		res, err := sc.Next()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("scan hbase:meta: %w", err)
		}
		var row, server, state string
		var startCode []byte
		for _, c := range res.Cells {
			row = string(c.Row)
			switch string(c.Qualifier) {
			case "server":
				server = string(c.Value)
			case "serverstartcode":
				startCode = c.Value
			case "state":
				state = string(c.Value)
			}
		}
		switch state {
		case "CLOSED", "SPLIT", "MERGED", "OFFLINE": // disabled tables, split parents
		case "OPEN", "":
			if server == "" || len(startCode) != 8 {
				if state == "" {
					continue // not a region row
				}
				return fmt.Sprintf("%s open on no server", row), nil
			}
			if !live[fmt.Sprintf("%s,%d", server, int64(binary.BigEndian.Uint64(startCode)))] {
				return fmt.Sprintf("%s open on %s, which is not live", row, server), nil
			}
		default:
			return fmt.Sprintf("%s is %s", row, state), nil
		}
	}
}

// keep writes (after creating the table if needed) or reads back one cell
// whose value is derived from the table name.
func keep(ctx context.Context, zk, table string, write bool) error {
	want := []byte("value-of-" + table)
	if !write {
		return putGet(ctx, zk, table, want, false)
	}
	admin := gohbase.NewAdminClient(zk)
	families := map[string]map[string]string{"cf": nil}
	err := admin.CreateTable(hrpc.NewCreateTable(ctx, []byte(table), families))
	if err != nil && !strings.Contains(err.Error(), "TableExistsException") {
		return fmt.Errorf("create table %s: %w", table, err)
	}
	return putGet(ctx, zk, table, want, true)
}

// putGet optionally writes want to table/row/cf:q, then reads it back.
func putGet(ctx context.Context, zk, table string, want []byte, write bool) error {
	client := gohbase.NewClient(zk)
	defer client.Close()
	if !write {
		return getCell(ctx, client, table, want)
	}
	put, err := hrpc.NewPutStr(ctx, table, "row", map[string]map[string][]byte{"cf": {"q": want}})
	if err != nil {
		return fmt.Errorf("put: %w", err)
	}
	if _, err := client.Put(put); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	return getCell(ctx, client, table, want)
}

func getCell(ctx context.Context, client gohbase.Client, table string, want []byte) error {
	get, err := hrpc.NewGetStr(ctx, table, "row")
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	res, err := client.Get(get)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	if len(res.Cells) != 1 || !bytes.Equal(res.Cells[0].Value, want) {
		return fmt.Errorf("get: got %v, want one cell %q", res.Cells, want)
	}
	return nil
}
