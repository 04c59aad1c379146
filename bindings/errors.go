package bindings

import (
	"errors"
	"fmt"
)

// ErrorCode is a CQL error code, numbered as in the native protocol.
type ErrorCode uint32

// CQL error codes.
const (
	CodeServerError   ErrorCode = 0x0000
	CodeProtocolError ErrorCode = 0x000A
	CodeAuthError     ErrorCode = 0x0100
	CodeUnavailable   ErrorCode = 0x1000
	CodeOverloaded    ErrorCode = 0x1001
	CodeBootstrapping ErrorCode = 0x1002
	CodeTruncateError ErrorCode = 0x1003
	CodeWriteTimeout  ErrorCode = 0x1100
	CodeReadTimeout   ErrorCode = 0x1200
	CodeReadFailure   ErrorCode = 0x1300
	CodeFunctionFail  ErrorCode = 0x1400
	CodeWriteFailure  ErrorCode = 0x1500
	CodeSyntaxError   ErrorCode = 0x2000
	CodeUnauthorized  ErrorCode = 0x2100
	CodeInvalid       ErrorCode = 0x2200
	CodeConfigError   ErrorCode = 0x2300
	CodeAlreadyExists ErrorCode = 0x2400
	CodeUnprepared    ErrorCode = 0x2500
)

var codeNames = map[ErrorCode]string{
	CodeServerError: "ServerError", CodeProtocolError: "ProtocolError",
	CodeAuthError: "AuthenticationError", CodeUnavailable: "Unavailable",
	CodeOverloaded: "Overloaded", CodeBootstrapping: "IsBootstrapping",
	CodeTruncateError: "TruncateError", CodeWriteTimeout: "WriteTimeout",
	CodeReadTimeout: "ReadTimeout", CodeReadFailure: "ReadFailure",
	CodeFunctionFail: "FunctionFailure", CodeWriteFailure: "WriteFailure",
	CodeSyntaxError: "SyntaxError", CodeUnauthorized: "Unauthorized",
	CodeInvalid: "Invalid", CodeConfigError: "ConfigError",
	CodeAlreadyExists: "AlreadyExists", CodeUnprepared: "Unprepared",
}

// String returns the code's name as drivers print it ("Invalid").
func (c ErrorCode) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("ErrorCode(0x%04x)", uint32(c))
}

// CodeByName maps a name from String back to its code.
func CodeByName(name string) (ErrorCode, bool) {
	for c, n := range codeNames {
		if n == name {
			return c, true
		}
	}
	return 0, false
}

// Error is a CQL error: the protocol between bindings, the proxy and the wire.
// Code-specific fields are filled where the protocol carries them.
type Error struct {
	Code    ErrorCode
	Message string

	Keyspace, Table string // AlreadyExists
	UnpreparedID    []byte // Unprepared
	// Timeouts / Unavailable.
	Consistency Consistency
	Received    int32
	BlockFor    int32
	WriteType   string // WriteTimeout: SIMPLE, BATCH, CAS, ...
	DataPresent bool   // ReadTimeout

	unsupported bool
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// Is makes errors.Is(err, ErrInvalid) true for every Invalid error, and
// errors.Is(err, ErrUnsupported) true for errors made by Unsupported.
func (e *Error) Is(target error) bool {
	if target == ErrUnsupported {
		return e.unsupported
	}
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels, one per error code, for errors.Is. Never return them directly:
// return Errorf(code, ...) so the client sees a message.
var (
	ErrServer        = &Error{Code: CodeServerError}
	ErrProtocol      = &Error{Code: CodeProtocolError}
	ErrAuth          = &Error{Code: CodeAuthError}
	ErrUnavailable   = &Error{Code: CodeUnavailable}
	ErrOverloaded    = &Error{Code: CodeOverloaded}
	ErrWriteTimeout  = &Error{Code: CodeWriteTimeout}
	ErrReadTimeout   = &Error{Code: CodeReadTimeout}
	ErrSyntax        = &Error{Code: CodeSyntaxError}
	ErrUnauthorized  = &Error{Code: CodeUnauthorized}
	ErrInvalid       = &Error{Code: CodeInvalid}
	ErrConfig        = &Error{Code: CodeConfigError}
	ErrAlreadyExists = &Error{Code: CodeAlreadyExists}
	ErrUnprepared    = &Error{Code: CodeUnprepared}

	// ErrUnsupported marks an Invalid error raised because dohyo does not
	// implement a feature (as opposed to a statement Cassandra rejects too).
	ErrUnsupported = errors.New("unsupported")
	// ErrBadConn means the backend connection is broken; retry elsewhere.
	ErrBadConn = errors.New("bad backend connection")
)

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Unsupported returns an Invalid error naming a feature dohyo does not
// implement; errors.Is(err, ErrUnsupported) holds for it.
func Unsupported(format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...), unsupported: true}
}

// AsError extracts the *Error in err's chain, or wraps err as a ServerError
// so every failure has a protocol-level code.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeServerError, Message: err.Error()}
}
