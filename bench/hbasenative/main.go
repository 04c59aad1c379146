// Command hbasenative (re)creates the table YCSB's own HBase binding writes
// in bench/hbase-native.sh: dropped if it exists, then created in HBase's
// default namespace with one column family and the given split points
// (the dohyo side uses salt=8, eight regions; the native table gets eight
// regions too) and the data block encoding given (FAST_DIFF, dohyo's
// default for its tables, unless told otherwise: HBase then does the same
// work per cell for both clients).
//
//	go run ./bench/hbasenative -zk 127.0.0.1:2181 -table spd_native_usertable -family family -splits user2,user3,user4,user5,user6,user7,user8 -encoding FAST_DIFF
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
)

func main() {
	zk := flag.String("zk", "127.0.0.1:2181", "ZooKeeper quorum")
	table := flag.String("table", "spd_native_usertable", "table (default namespace)")
	family := flag.String("family", "family", "column family")
	splits := flag.String("splits", "user2,user3,user4,user5,user6,user7,user8", "comma-separated split points")
	encoding := flag.String("encoding", "FAST_DIFF", "DATA_BLOCK_ENCODING of the family (NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := recreate(ctx, *zk, *table, *family, *encoding, strings.Split(*splits, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "hbasenative:", err)
		os.Exit(1)
	}
}

func recreate(ctx context.Context, zk, table, family, encoding string, splits []string) error {
	ac := gohbase.NewAdminClient(zk)
	name := []byte(table)
	// A missing table fails both calls: that is the state wanted.
	if err := ac.DisableTable(hrpc.NewDisableTable(ctx, name)); err != nil && !notFound(err) {
		return fmt.Errorf("disable %s: %w", table, err)
	}
	if err := ac.DeleteTable(hrpc.NewDeleteTable(ctx, name)); err != nil && !notFound(err) {
		return fmt.Errorf("delete %s: %w", table, err)
	}
	var keys [][]byte
	for _, s := range splits {
		if s != "" {
			keys = append(keys, []byte(s))
		}
	}
	ct := hrpc.NewCreateTable(ctx, name, map[string]map[string]string{family: {"DATA_BLOCK_ENCODING": encoding}}, hrpc.SplitKeys(keys))
	if err := ac.CreateTable(ct); err != nil {
		return fmt.Errorf("create %s: %w", table, err)
	}
	return nil
}

// notFound tells HBase's "no such table" and "not enabled" answers.
func notFound(err error) bool {
	return strings.Contains(err.Error(), "TableNotFoundException") ||
		strings.Contains(err.Error(), "TableNotEnabledException")
}
