// Command check proves that a standalone HBase answers real client calls:
// through gohbase it reads the cluster status (and insists that every server
// advertises 127.0.0.1, since gohbase dials what the servers publish), creates
// a throw-away table, writes and reads back one cell, then disables and
// deletes the table. It exits non-zero on the first failure. it/hbase/run.sh
// uses it as the last step of "wait".
//
// -mode write -table T creates T (if needed) and writes one known cell and
// leaves it there; -mode read -table T reads that cell back. Together they
// check that data survives a server restart.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
)

func main() {
	zkDefault := os.Getenv("DOHYO_TEST_HBASE_ZK")
	if zkDefault == "" {
		zkDefault = "127.0.0.1:2181"
	}
	zk := flag.String("zk", zkDefault, "ZooKeeper quorum (dial 127.0.0.1, not localhost)")
	timeout := flag.Duration("timeout", 60*time.Second, "overall deadline")
	mode := flag.String("mode", "roundtrip", "roundtrip, write or read")
	table := flag.String("table", "", "table for -mode write/read")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	start := time.Now()
	var err error
	switch *mode {
	case "roundtrip":
		err = run(ctx, *zk)
	case "write", "read":
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
	// gohbase's admin calls take their deadline from the request context, but
	// ClusterStatus has none: run it in a goroutine so the deadline still holds.
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

func checkStatus(ctx context.Context, admin gohbase.AdminClient) error {
	type result struct {
		live  int
		hosts []string
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		st, err := admin.ClusterStatus()
		if err != nil {
			ch <- result{err: err}
			return
		}
		var r result
		if m := st.GetMaster(); m != nil {
			r.hosts = append(r.hosts, m.GetHostName())
		}
		for _, s := range st.GetLiveServers() {
			r.live++
			r.hosts = append(r.hosts, s.GetServer().GetHostName())
		}
		ch <- r
	}()
	select {
	case <-ctx.Done():
		return fmt.Errorf("cluster status: %w", ctx.Err())
	case r := <-ch:
		if r.err != nil {
			return fmt.Errorf("cluster status: %w", r.err)
		}
		if r.live == 0 {
			return errors.New("cluster status: no live region servers")
		}
		for _, h := range r.hosts {
			if h != "127.0.0.1" {
				return fmt.Errorf("cluster status: a server advertises %q, want 127.0.0.1", h)
			}
		}
		return nil
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
