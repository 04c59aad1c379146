package java

import "fmt"

// CompileError is a body refused at CREATE time: Cassandra's "Java source
// compilation failed" for what javac would reject, or a construct outside
// dohyo's subset (Unsupported).
type CompileError struct {
	Line        int
	Msg         string
	Unsupported bool
}

func (e *CompileError) Error() string {
	if e.Unsupported {
		return e.Msg
	}
	return fmt.Sprintf("Java source compilation failed:\nLine %d: %s\n", e.Line, e.Msg)
}

func compileErrf(line int, format string, args ...any) *CompileError {
	return &CompileError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// unsupportedErr refuses a construct of the body that dohyo does not run.
func unsupportedErr(line int, what string) *CompileError {
	return &CompileError{Line: line, Unsupported: true, Msg: fmt.Sprintf(
		"Java UDF body uses %s (line %d), which dohyo's Java subset does not run; "+
			"route the keyspace to Cassandra (--route KEYSPACE=cassandra://HOST:PORT) for full Java", what, line)}
}

// ExecError is a failure while running a function: a Java exception
// (ArithmeticException, NullPointerException, ...) or the step budget
// exhausted. Cassandra answers these with a FunctionFailure error.
type ExecError struct{ Msg string }

func (e *ExecError) Error() string { return e.Msg }

// jexc is a Java exception thrown while evaluating (class and message).
func jexc(class, format string, args ...any) *ExecError {
	return &ExecError{Msg: "java.lang." + class + ": " + fmt.Sprintf(format, args...)}
}
