package schema

import "fmt"

// Code classifies a DDL error. Bindings map it to the CQL error code of the
// same name (Invalid 0x2200, AlreadyExists 0x2400, ConfigError 0x2300,
// SyntaxError 0x2000).
type Code int

// Error codes.
const (
	Invalid Code = iota + 1
	AlreadyExists
	ConfigError
	SyntaxError
	Unauthorized // 0x2100
)

// String returns the code's name.
func (c Code) String() string {
	switch c {
	case Invalid:
		return "Invalid"
	case AlreadyExists:
		return "AlreadyExists"
	case ConfigError:
		return "ConfigError"
	case SyntaxError:
		return "SyntaxError"
	case Unauthorized:
		return "Unauthorized"
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error is a rejected DDL statement. Message is Cassandra's text for the same
// mistake; Keyspace and Table name the object (AlreadyExists needs them).
type Error struct {
	Code     Code
	Message  string
	Keyspace string
	// Unsupported marks a statement Cassandra accepts that dohyo does not
	// run (a Java UDF body outside dohyo's subset).
	Unsupported bool
	Table       string
}

func (e *Error) Error() string { return e.Message }

func invalidf(format string, args ...any) *Error {
	return &Error{Code: Invalid, Message: fmt.Sprintf(format, args...)}
}

func configf(format string, args ...any) *Error {
	return &Error{Code: ConfigError, Message: fmt.Sprintf(format, args...)}
}

func syntaxf(format string, args ...any) *Error {
	return &Error{Code: SyntaxError, Message: fmt.Sprintf(format, args...)}
}
