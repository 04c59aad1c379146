package java

import "strings"

// jkind is the static kind of a declared Java variable or cast.
type jkind int

const (
	kAny jkind = iota // var, Object, Number, Collection: no conversion
	kBoolean
	kByte
	kShort
	kChar
	kInt
	kLong
	kFloat
	kDouble
	kString
	kList
	kSet
	kMap
	kEntry
	kTuple
	kUDT
	kBuilder // StringBuilder, StringBuffer
)

// jtype is a declared type: its kind and whether it is a reference
// (boxed or object) type, which may hold null.
type jtype struct {
	k   jkind
	ref bool
}

func (t jtype) primitive() bool { return !t.ref && t.k >= kBoolean && t.k <= kDouble }

var primitiveNames = map[string]jkind{
	"boolean": kBoolean, "byte": kByte, "short": kShort, "char": kChar,
	"int": kInt, "long": kLong, "float": kFloat, "double": kDouble,
}

// classNames are the reference types the subset knows, by simple name.
var classNames = map[string]jkind{
	"Boolean": kBoolean, "Byte": kByte, "Short": kShort, "Character": kChar,
	"Integer": kInt, "Long": kLong, "Float": kFloat, "Double": kDouble,
	"String": kString, "CharSequence": kString, "Object": kAny, "Number": kAny,
	"List": kList, "ArrayList": kList, "LinkedList": kList, "Collection": kAny, "Iterable": kAny,
	"Set": kSet, "HashSet": kSet, "LinkedHashSet": kSet,
	"Map": kMap, "HashMap": kMap, "LinkedHashMap": kMap, "Entry": kEntry,
	"TupleValue": kTuple, "UDTValue": kUDT,
	"StringBuilder": kBuilder, "StringBuffer": kBuilder,
}

// constructible are the classes `new` may create (with no arguments, or
// a collection to copy).
var constructible = map[string]jkind{
	"ArrayList": kList, "LinkedList": kList, "HashSet": kSet, "LinkedHashSet": kSet,
	"HashMap": kMap, "LinkedHashMap": kMap, "StringBuilder": kBuilder, "StringBuffer": kBuilder,
}

// boxedConstructible are the classes whose deprecated constructors
// (new Double(x), new Integer("12")) the subset runs: valueOf of their
// one argument (new String(s) copies a string).
var boxedConstructible = map[string]bool{
	"Integer": true, "Long": true, "Short": true, "Byte": true, "Double": true, "Float": true,
	"Boolean": true, "Character": true, "String": true,
}

// staticClasses are the classes whose static methods and fields the
// subset has.
var staticClasses = map[string]bool{
	"Math": true, "Integer": true, "Long": true, "Double": true, "Float": true, "Short": true,
	"Byte": true, "Boolean": true, "Character": true, "String": true, "StrictMath": true,
	"System": true, "Objects": true,
}

// stripPackage removes java.lang., java.util. and Cassandra's package
// prefixes from a qualified class name.
func stripPackage(name string) string {
	for _, p := range []string{"java.lang.", "java.util.", "org.apache.cassandra.cql3.functions.types.",
		"com.datastax.driver.core."} {
		if strings.HasPrefix(name, p) {
			return name[len(p):]
		}
	}
	return name
}
