// Package java runs the bodies of Cassandra's Java user-defined
// functions (CREATE FUNCTION ... LANGUAGE java AS '...') without a JVM: a
// Go process cannot host Java, so dohyo interprets a subset of the
// language. Compile lexes and parses a body into an AST once, at CREATE
// time, resolving every local variable and checking every construct;
// anything outside the subset is refused there with an error naming the
// construct (a *CompileError). Func.Call then evaluates the tree on
// serialized CQL arguments, with Java's semantics for what the subset has
// (32- and 64-bit wrapping integer arithmetic, integer division,
// ArithmeticException on division by zero, UTF-16 string indexing,
// boxing and NullPointerException on unboxing null), under a step budget
// and bounded allocation so a hostile loop fails fast (a *ExecError,
// which Cassandra reports as a function failure).
//
// The subset: literals (int, long, float, double, boolean, char, String,
// null); local variables of primitive, boxed, String, collection,
// TupleValue/UDTValue and var types; assignment and compound assignment;
// ++/--; arithmetic, bitwise, shift, comparison, logical and ternary
// operators; string concatenation; numeric casts; if/else, while,
// do/while, for, enhanced for, break, continue, return and blocks; the
// methods of boxed numbers, String, Math, List/Set/Map (and Map.Entry),
// Cassandra's TupleValue and UDTValue, and udfContext's
// newReturnTupleValue/newArgTupleValue/newReturnUDTValue/newArgUDTValue;
// the boxed types' constructors, System.currentTimeMillis/nanoTime,
// Math.random, StringBuilder/StringBuffer, java.util.Objects and Integer's
// and Long's bit and radix helpers (methods_more.go, methods_builder.go).
// Not in it: class, method, lambda and array declarations, exceptions
// (try, throw), switch, labels, instanceof, generics beyond type
// arguments, and the rest of the JDK.
package java
