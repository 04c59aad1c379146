package widecolumn

import (
	"strings"

	"github.com/dohyo/dohyo/bindings"
)

// udfRefusal answers CREATE/DROP FUNCTION and AGGREGATE. Cassandra 5.0's
// only UDF language is Java (JavaScript was removed in 5.0), its UDFs are
// off by default (user_defined_functions_enabled: false), and running
// arbitrary Java is out of dohyo's reach: the engine refuses them, naming
// the feature, why, and the way out (routing the keyspace to Cassandra).
func udfRefusal(what string) error {
	if !strings.HasSuffix(what, " FUNCTION") && !strings.HasSuffix(what, " AGGREGATE") {
		return nil
	}
	kind := "user-defined functions"
	if strings.HasSuffix(what, "AGGREGATE") {
		kind = "user-defined aggregates"
	}
	return bindings.Unsupported("%s is not supported by dohyo's wide-column engine: %s are Java code in Cassandra 5.0 "+
		"(its only UDF language; off by default there), which dohyo does not run; route the keyspace to Cassandra "+
		"(--route KEYSPACE=cassandra://HOST:PORT) to use them", what, kind)
}
