package graphql

import "testing"

func TestNameConversions(t *testing.T) {
	// Cases from Stargate's NameConversionsTest.
	cases := []struct {
		kind      identKind
		cql, want string
	}{
		{identTable, "foobar", "foobar"},
		{identColumn, "foo_bar", "foo_bar"},
		{identTable, "fooBar", "fooBar"},
		{identColumn, "FooBar", "FooBar"},
		{identTable, "foo__bar", "foo__bar"},
		{identTable, "123", "x31_23"},
		{identTable, "__foobar", "x5f__foobar"},
		{identColumn, "_foobar", "_foobar"},
		{identTable, "_", "_"},
		{identTable, "Hello world!", "Hellox20_worldx21_"},
		{identColumn, "\U0001F577", "x1f577_"},
		{identTable, "ὗ7", "x1f57_7"},
		{identColumn, "x1f_", "x78_1f_"},
		{identTable, "Mutation", "Mutatiox6e_"},
		{identTable, "MutationConsistency", "MutationConsistencx79_"},
		{identTable, "MutationOptions", "MutationOptionx73_"},
		{identTable, "Query", "Querx79_"},
		{identTable, "QueryConsistency", "QueryConsistencx79_"},
		{identTable, "QueryOptions", "QueryOptionx73_"},
		{identTable, "SerialConsistency", "SerialConsistencx79_"},
		{identTable, "Boolean", "Booleax6e_"},
		{identTable, "Float", "Floax74_"},
		{identTable, "Int", "Inx74_"},
		{identTable, "String", "Strinx67_"},
		{identTable, "Uuid", "Uuix64_"},
		{identTable, "TimeUuid", "TimeUuix64_"},
		{identTable, "Inet", "Inex74_"},
		{identTable, "Date", "Datx65_"},
		{identTable, "Duration", "Duratiox6e_"},
		{identTable, "BigInt", "BigInx74_"},
		{identTable, "Counter", "Countex72_"},
		{identTable, "Ascii", "Ascix69_"},
		{identTable, "Decimal", "Decimax6c_"},
		{identTable, "Varint", "Varinx74_"},
		{identTable, "Float32", "Float3x32_"}, // Stargate: "Float32", a clash with the scalar
		{identTable, "Blob", "Blox62_"},
		{identTable, "SmallInt", "SmallInx74_"},
		{identTable, "TinyInt", "TinyInx74_"},
		{identTable, "Timestamp", "Timestamx70_"},
		{identTable, "Time", "Timx65_"},
		{identColumn, "Mutation", "Mutation"},
		{identUDT, "Mutation", "MutationUdt"},
		{identTable, "EntryFoo", "Entrx79_Foo"},
		{identTable, "TupleFoo", "Tuplx65_Foo"},
		{identUDT, "EntryFoo", "Entrx79_FooUdt"},
		{identUDT, "TupleFoo", "Tuplx65_FooUdt"},
		{identTable, "FooFilterInput", "FooFilterInpux74_"},
		{identTable, "FooInput", "FooInpux74_"},
		{identTable, "FooResult", "FooResulx74_"},
		{identTable, "FooMutationResult", "FooMutationResulx74_"},
		{identTable, "FooOrder", "FooOrdex72_"},
		{identTable, "FooUdt", "FooUdx74_"},
		{identColumn, "FooInput", "FooInput"},
		{identColumn, "FooUdt", "FooUdt"},
		{identUDT, "FooInput", "FooInputUdt"},
		{identUDT, "FooUdt", "FooUdtUdt"},
	}
	for _, c := range cases {
		if got := toGraphQLName(c.cql, c.kind); got != c.want {
			t.Errorf("toGraphQLName(%q, %d) = %q, want %q", c.cql, c.kind, got, c.want)
		}
		if got := toCQLName(c.want, c.kind); got != c.cql {
			t.Errorf("toCQLName(%q, %d) = %q, want %q", c.want, c.kind, got, c.cql)
		}
	}
}
