package cqlserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// udtAddr marshals itself as the addr UDT (gocql.UDTMarshaler and
// gocql.UDTUnmarshaler), the way applications map UDTs by hand.
type udtAddr struct {
	Street string
	Zip    int
}

func (a udtAddr) MarshalUDT(name string, info gocql.TypeInfo) ([]byte, error) {
	switch name {
	case "street":
		return gocql.Marshal(info, a.Street)
	case "zip":
		return gocql.Marshal(info, a.Zip)
	}
	return nil, nil
}

func (a *udtAddr) UnmarshalUDT(name string, info gocql.TypeInfo, data []byte) error {
	switch name {
	case "street":
		return gocql.Unmarshal(info, data, &a.Street)
	case "zip":
		return gocql.Unmarshal(info, data, &a.Zip)
	}
	return nil
}

// udtTagged is mapped by gocql's reflection (cql tags).
type udtTagged struct {
	Street string `cql:"street"`
	Zip    int    `cql:"zip"`
}

// TestGocqlUDT runs gocql's UDT paths against the engine: marshalers,
// reflection, maps, MapScan, nulls, field updates, and the UDT type
// option in result metadata (keyspace, name, field names and types).
func TestGocqlUDT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and a driver")
	}
	addr := embeddedServer(t).listen(t)
	sess := gocqlSession(t, addr, 4)
	mustExec(t, sess, "CREATE KEYSPACE gu WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, sess, "CREATE TYPE gu.addr (street text, zip int)")
	mustExec(t, sess, "CREATE TABLE gu.t (k int PRIMARY KEY, a addr, f frozen<addr>, l list<frozen<addr>>)")

	mustExec(t, sess, "INSERT INTO gu.t (k, a, f, l) VALUES (?, ?, ?, ?)", 1,
		udtAddr{"main", 1}, udtTagged{"side", 2}, []map[string]any{{"street": "x", "zip": 3}})
	var a udtAddr
	var f udtTagged
	var l []map[string]any
	if err := sess.Query("SELECT a, f, l FROM gu.t WHERE k = ?", 1).Scan(&a, &f, &l); err != nil {
		t.Fatal(err)
	}
	if a != (udtAddr{"main", 1}) || f != (udtTagged{"side", 2}) || len(l) != 1 || l[0]["street"] != "x" || l[0]["zip"] != 3 {
		t.Fatalf("scanned a=%+v f=%+v l=%v", a, f, l)
	}

	// Field update and field selection.
	mustExec(t, sess, "UPDATE gu.t SET a.zip = ? WHERE k = ?", 9, 1)
	var zip int
	var street string
	if err := sess.Query("SELECT a.zip, a.street FROM gu.t WHERE k = ?", 1).Scan(&zip, &street); err != nil || zip != 9 || street != "main" {
		t.Fatalf("field select: %d %q %v", zip, street, err)
	}

	// MapScan decodes a UDT as a map by field name.
	row := map[string]any{}
	if err := sess.Query("SELECT a FROM gu.t WHERE k = 1").MapScan(row); err != nil {
		t.Fatal(err)
	}
	if m, ok := row["a"].(map[string]any); !ok || m["street"] != "main" || m["zip"] != 9 {
		t.Fatalf("MapScan: %#v", row)
	}

	// A null UDT, and a UDT with a missing field.
	mustExec(t, sess, "INSERT INTO gu.t (k, f) VALUES (2, {street: 'only'})")
	var fm map[string]any
	var am map[string]any
	if err := sess.Query("SELECT a, f FROM gu.t WHERE k = 2").Scan(&am, &fm); err != nil {
		t.Fatal(err)
	}
	if len(am) != 0 || fm["street"] != "only" || fm["zip"] != 0 {
		t.Fatalf("null/missing: a=%#v f=%#v", am, fm)
	}

	// Result metadata carries the UDT type option.
	iter := sess.Query("SELECT a FROM gu.t WHERE k = 1").Iter()
	cols := iter.Columns()
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	ut, ok := cols[0].TypeInfo.(gocql.UDTTypeInfo)
	if !ok {
		t.Fatalf("type info %T", cols[0].TypeInfo)
	}
	var fields []string
	for _, e := range ut.Elements {
		fields = append(fields, e.Name+" "+e.Type.Type().String())
	}
	if ut.KeySpace != "gu" || ut.Name != "addr" || !reflect.DeepEqual(fields, []string{"street varchar", "zip int"}) {
		t.Fatalf("udt metadata: %s.%s %v", ut.KeySpace, ut.Name, fields)
	}

	// system_schema.types and DESCRIBE.
	var names, types []string
	if err := sess.Query("SELECT field_names, field_types FROM system_schema.types WHERE keyspace_name = 'gu' AND type_name = 'addr'").Scan(&names, &types); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"street", "zip"}) || !reflect.DeepEqual(types, []string{"text", "int"}) {
		t.Fatalf("system_schema.types: %v %v", names, types)
	}
	var create string
	if err := sess.Query("DESCRIBE TYPE gu.addr").Scan(nil, nil, nil, &create); err != nil {
		t.Fatal(err)
	}
	if want := "CREATE TYPE gu.addr (\n    street text,\n    zip int\n);"; create != want {
		t.Fatalf("DESCRIBE TYPE:\n%s\nwant\n%s", create, want)
	}
	// gocql's own schema metadata reads system_schema.types.
	md, err := sess.KeyspaceMetadata("gu")
	if err != nil {
		t.Fatal(err)
	}
	if u := md.UserTypes["addr"]; u == nil || strings.Join(u.FieldNames, ",") != "street,zip" {
		t.Fatalf("KeyspaceMetadata user types: %+v", md.UserTypes)
	}
}
