package cqlserver

import (
	"math"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// gocqlTypeText renders a driver TypeInfo (tuples with their elements).
func gocqlTypeText(ti gocql.TypeInfo) string {
	if tt, ok := ti.(gocql.TupleTypeInfo); ok {
		parts := make([]string, len(tt.Elems))
		for i, e := range tt.Elems {
			parts[i] = gocqlTypeText(e)
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	}
	if ti == nil {
		return "<nil>"
	}
	return ti.Type().String()
}

func gocqlTypesText(tis []gocql.TypeInfo) string {
	parts := make([]string, len(tis))
	for i, ti := range tis {
		parts[i] = gocqlTypeText(ti)
	}
	return strings.Join(parts, ", ")
}

// TestGocqlFunctionMetadata creates gocql v1.7.0's TestFunctionMetadata
// and TestAggregateMetadata functions and aggregates (common_test.go:
// createFunctions, createAggregate) through dohyo, on the embedded store
// and on HBase, checks what the driver reads back from
// system_schema.functions/aggregates with KeyspaceMetadata, and calls the
// aggregate.
func TestGocqlFunctionMetadata(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and a driver")
	}
	for _, sb := range storeBackends(t) {
		t.Run(sb.name, func(t *testing.T) {
			ts := newTestServerWith(t, sb.open(t), nil, nil)
			sess := gocqlSession(t, ts.listen(t), 4)
			checkGocqlFunctionMetadata(t, sess)
		})
	}
}

func checkGocqlFunctionMetadata(t *testing.T, sess *gocql.Session) {
	mustExec(t, sess, "CREATE KEYSPACE udfmeta WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	stateBody := "if (val !=null) {state.setInt(0, state.getInt(0)+1); state.setLong(1, state.getLong(1)+val.intValue());}return state;"
	finalBody := "double r = 0; if (state.getInt(0) == 0) return null; r = state.getLong(1); r/= state.getInt(0); return Double.valueOf(r);"
	mustExec(t, sess, `CREATE OR REPLACE FUNCTION udfmeta.avgState ( state tuple<int,bigint>, val int ) CALLED ON NULL INPUT
		RETURNS tuple<int,bigint> LANGUAGE java AS $$`+stateBody+`$$;`)
	mustExec(t, sess, `CREATE OR REPLACE FUNCTION udfmeta.avgFinal ( state tuple<int,bigint> ) CALLED ON NULL INPUT
		RETURNS double LANGUAGE java AS $$`+finalBody+`$$`)
	for _, name := range []string{"average", "average2"} {
		mustExec(t, sess, `CREATE OR REPLACE AGGREGATE udfmeta.`+name+`(int) SFUNC avgState STYPE tuple<int,bigint>
			FINALFUNC avgFinal INITCOND (0,0);`)
	}
	km, err := sess.KeyspaceMetadata("udfmeta")
	if err != nil {
		t.Fatal(err)
	}
	if len(km.Functions) != 2 || len(km.Aggregates) != 2 {
		t.Fatalf("%d functions and %d aggregates, want 2 and 2", len(km.Functions), len(km.Aggregates))
	}
	st, fin := km.Functions["avgstate"], km.Functions["avgfinal"]
	if st == nil || fin == nil {
		t.Fatalf("functions %v", km.Functions)
	}
	checkFn := func(f *gocql.FunctionMetadata, args, names, ret, body string) {
		t.Helper()
		if f.Keyspace != "udfmeta" || gocqlTypesText(f.ArgumentTypes) != args || strings.Join(f.ArgumentNames, ",") != names ||
			gocqlTypeText(f.ReturnType) != ret || !f.CalledOnNullInput || f.Language != "java" || f.Body != body {
			t.Errorf("function %s: %+v (args %s, return %s)", f.Name, *f, gocqlTypesText(f.ArgumentTypes), gocqlTypeText(f.ReturnType))
		}
	}
	checkFn(st, "tuple<int, bigint>, int", "state,val", "tuple<int, bigint>", stateBody)
	checkFn(fin, "tuple<int, bigint>", "state", "double", finalBody)
	for _, name := range []string{"average", "average2"} {
		a := km.Aggregates[name]
		if a == nil {
			t.Fatalf("no aggregate %s", name)
		}
		if a.Keyspace != "udfmeta" || gocqlTypesText(a.ArgumentTypes) != "int" || a.InitCond != "(0, 0)" ||
			gocqlTypeText(a.ReturnType) != "double" || gocqlTypeText(a.StateType) != "tuple<int, bigint>" ||
			a.StateFunc.Name != "avgstate" || a.FinalFunc.Name != "avgfinal" {
			t.Errorf("aggregate %s: %+v", name, *a)
		}
	}

	// DESCRIBE, as Cassandra 5.0 prints it.
	describe := func(q string) (string, string) {
		t.Helper()
		var ks, typ, name, create string
		if err := sess.Query(q).Scan(&ks, &typ, &name, &create); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return name, create
	}
	if name, create := describe("DESCRIBE FUNCTION udfmeta.avgstate"); name != "avgstate(tuple<int, bigint>, int)" ||
		create != "CREATE FUNCTION udfmeta.avgstate(state tuple<int, bigint>, val int)\n    CALLED ON NULL INPUT\n"+
			"    RETURNS tuple<int, bigint>\n    LANGUAGE java\n    AS $$"+stateBody+"$$;" {
		t.Errorf("DESCRIBE FUNCTION: %q %q", name, create)
	}
	if name, create := describe("DESCRIBE AGGREGATE udfmeta.average"); name != "average(int)" ||
		create != "CREATE AGGREGATE udfmeta.average(int)\n    SFUNC avgstate\n    STYPE tuple<int, bigint>\n    FINALFUNC avgfinal\n    INITCOND (0, 0);" {
		t.Errorf("DESCRIBE AGGREGATE: %q %q", name, create)
	}

	mustExec(t, sess, "CREATE TABLE udfmeta.t (k int, c int, v int, PRIMARY KEY (k, c))")
	for c, v := range []int{1, 2, 6} {
		mustExec(t, sess, "INSERT INTO udfmeta.t (k, c, v) VALUES (1, ?, ?)", c, v)
	}
	mustExec(t, sess, "INSERT INTO udfmeta.t (k, c) VALUES (1, 9)")
	var avg float64
	if err := sess.Query("SELECT udfmeta.average(v) FROM udfmeta.t WHERE k = 1").Scan(&avg); err != nil || math.Abs(avg-3) > 1e-12 {
		t.Fatalf("average(v) = %v, %v; want 3", avg, err)
	}
	var none *float64
	if err := sess.Query("SELECT average(v) FROM udfmeta.t WHERE k = 2").Scan(&none); err != nil || none != nil {
		t.Fatalf("average over no rows = %v, %v; want null", none, err)
	}
	err = sess.Query("SELECT avgfinal(v) FROM udfmeta.t WHERE k = 1").Exec()
	if err == nil || !strings.Contains(err.Error(), "avgfinal") {
		t.Fatalf("avgfinal(int): %v, want a type error naming the function", err)
	}
}
