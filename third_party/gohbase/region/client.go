// Copyright (C) 2015  The GoHBase Authors.  All rights reserved.
// This file is part of GoHBase.
// Use of this source code is governed by the Apache License 2.0
// that can be found in the COPYING file.

package region

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	log "github.com/sirupsen/logrus"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/internal/bufpool"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// ClientType is a type alias to represent the type of this region client
type ClientType string

type canDeserializeCellBlocks interface {
	// DeserializeCellBlocks populates passed protobuf message with results
	// deserialized from the reader and returns number of bytes read or error.
	DeserializeCellBlocks(proto.Message, []byte) (uint32, error)
}

type canSerializeCellBlocks interface {
	// SerializeCellBlocks serializes RPC into protobuf for metadata
	// as well as cellblocks for payload.
	SerializeCellBlocks() (proto.Message, [][]byte, uint32)
	// CellBlocksEnabled returns true if cellblocks are enabled for this RPC
	CellBlocksEnabled() bool
}

var (
	// ErrMissingCallID is used when HBase sends us a response message for a
	// request that we didn't send
	ErrMissingCallID = ServerError{errors.New("got a response with a nonsensical call ID")}

	// ErrClientClosed is returned to rpcs when Close() is called or when client
	// died because of failed send or receive
	ErrClientClosed = ServerError{errors.New("client is closed")}

	// If a Java exception listed here is returned by HBase, the client should
	// reestablish region and attempt to resend the RPC message, potentially via
	// a different region client.
	// The value of exception should be contained in the stack trace.
	javaRegionExceptions = map[string]string{
		"org.apache.hadoop.hbase.NotServingRegionException":       "",
		"org.apache.hadoop.hbase.exceptions.RegionMovedException": "",
		"java.io.IOException": "Cannot append; log is closed",
	}

	// If a Java exception listed here is returned by HBase, the client should
	// backoff and resend the RPC message to the same region and region server
	// The value of exception should be contained in the stack trace.
	javaRetryableExceptions = map[string]string{
		"org.apache.hadoop.hbase.CallQueueTooBigException":          "",
		"org.apache.hadoop.hbase.exceptions.RegionOpeningException": "",
		"org.apache.hadoop.hbase.ipc.ServerNotRunningYetException":  "",
		"org.apache.hadoop.hbase.quotas.RpcThrottlingException":     "",
		"org.apache.hadoop.hbase.RetryImmediatelyException":         "",
		"org.apache.hadoop.hbase.RegionTooBusyException":            "",
	}

	// javaServerExceptions is a map where all Java exceptions that signify
	// the RPC should be sent again are listed (as keys). If a Java exception
	// listed here is returned by HBase, the RegionClient will be closed and a new
	// one should be established.
	// The value of exception should be contained in the stack trace.
	javaServerExceptions = map[string]string{
		"org.apache.hadoop.hbase.regionserver.RegionServerAbortedException": "",
		"org.apache.hadoop.hbase.regionserver.RegionServerStoppedException": "",
	}
)

const (
	//DefaultLookupTimeout is the default region lookup timeout
	DefaultLookupTimeout = 30 * time.Second
	//DefaultReadTimeout is the default region read timeout
	DefaultReadTimeout = 30 * time.Second
	// RegionClient is a ClientType that means this will be a normal client
	RegionClient = ClientType("ClientService")

	// MasterClient is a ClientType that means this client will talk to the
	// master server
	MasterClient = ClientType("MasterService")
)

var bufferPool sync.Pool

func newBuffer(size int) []byte {
	v := bufferPool.Get()
	var b []byte
	if v != nil {
		b = v.([]byte)
	}
	if cap(b) < size {
		return append(b[:0], make([]byte, size)...)[:size]
	}
	return b[:size]
}

func freeBuffer(b []byte) {
	bufferPool.Put(b[:0]) // nolint:staticcheck
}

// ServerError is an error that this region.Client can't recover from.
// The connection to the RegionServer has to be closed and all queued and
// outstanding RPCs will be failed / retried.
type ServerError struct {
	error
}

func formatErr(e interface{}, err error) string {
	if err == nil {
		return fmt.Sprintf("%T", e)
	}
	return fmt.Sprintf("%T: %s", e, err.Error())
}

func (e ServerError) Error() string {
	return formatErr(e, e.error)
}

// RetryableError is an error that indicates the RPC should be retried after backoff
// because the error is transient (e.g. a region being momentarily unavailable).
type RetryableError struct {
	error
}

func (e RetryableError) Error() string {
	return formatErr(e, e.error)
}

// NotServingRegionError is an error that indicates the client should
// reestablish the region and retry the RPC potentially via a different client
type NotServingRegionError struct {
	error
}

func (e NotServingRegionError) Error() string {
	return formatErr(e, e.error)
}

// Dialer connects to a region server or the master (dohyo patch).
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// client manages a connection to a RegionServer.
type client struct {
	conn net.Conn

	// Address of the RegionServer.
	addr  string
	ctype ClientType

	// dialer connects conn (dohyo patch; nil: a plain net.Dialer)
	dialer Dialer

	// dialOnce used for concurrent calls to Dial
	dialOnce sync.Once
	// failOnce used for concurrent calls to fail
	failOnce sync.Once

	rpcs chan hrpc.Call
	done chan struct{}

	// sent contains the mapping of sent call IDs to RPC calls, so that when
	// a response is received it can be tied to the correct RPC
	sentM sync.Mutex // protects sent
	sent  map[uint32]hrpc.Call

	// inFlight is number of rpcs sent to regionserver awaiting response
	inFlightM sync.Mutex // protects inFlight and SetReadDeadline
	inFlight  uint32
	// readDeadline is the connection's read deadline (dohyo patch,
	// deadline.go); zero when none is set. Guarded by inFlightM.
	readDeadline time.Time
	born         time.Time // when the client was made (deadline.go)

	id uint32

	rpcQueueSize  int
	flushInterval time.Duration
	effectiveUser string

	// readTimeout is the maximum amount of time to wait for regionserver reply
	readTimeout time.Duration

	// compressor for cellblocks. if nil, then no compression
	compressor *compressor

	// wg groups the writes of RPCs sent together (dohyo patch).
	wg       writeGroup
	sendBufs bufpool.Pool // dohyo patch: the buffers send encodes RPCs into
	// recvSize is where receive reads a response's length (dohyo patch:
	// only the receiving goroutine uses it; on receive's stack it escaped
	// through the io.Reader, an allocation per response).
	recvSize [4]byte
}

// QueueRPC will add an rpc call to the queue for processing by the writer goroutine
func (c *client) QueueRPC(rpc hrpc.Call) {
	if b, ok := rpc.(hrpc.Batchable); ok && c.rpcQueueSize > 1 && !b.SkipBatch() {
		// queue up the rpc
		select {
		case <-rpc.Context().Done():
			// rpc timed out before being processed
		case <-c.done:
			returnResult(rpc, nil, ErrClientClosed)
		case c.rpcs <- rpc:
		}
	} else {
		select {
		case <-c.done:
			// An unrecoverable error has occured,
			// region client has been stopped,
			// don't send rpcs
			returnResult(rpc, nil, ErrClientClosed)
		case <-rpc.Context().Done():
			// If the deadline has been exceeded, don't bother sending the
			// request. The function that placed the RPC in our queue should
			// stop waiting for a result and return an error.
		default:
			if err := c.trySend(rpc); err != nil {
				returnResult(rpc, nil, err)
			}
		}
	}
}

// Close asks this region.Client to close its connection to the RegionServer.
// All queued and outstanding RPCs, if any, will be failed as if a connection
// error had happened.
func (c *client) Close() {
	c.fail(ErrClientClosed)
}

// Addr returns address of the region server the client is connected to
func (c *client) Addr() string {
	return c.addr
}

// String returns a string represintation of the current region client
func (c *client) String() string {
	return fmt.Sprintf("RegionClient{Addr: %s}", c.addr)
}

// dohyo patch: inFlightUp and inFlightDown are in deadline.go.

func (c *client) fail(err error) {
	c.failOnce.Do(func() {
		if err != ErrClientClosed {
			log.WithFields(log.Fields{
				"client": c,
				"err":    err,
			}).Error("error occured, closing region client")
		}

		// we don't close c.rpcs channel to make it block in select of QueueRPC
		// and avoid dealing with synchronization of closing it while someone
		// might be sending to it. Go's GC will take care of it.

		// tell goroutines to stop
		close(c.done)

		// close connection to the regionserver
		// to let it know that we can't receive anymore
		// and fail all the rpcs being sent
		if c.conn != nil {
			c.conn.Close()
		}

		c.failSentRPCs()
	})
}

func (c *client) failSentRPCs() {
	// channel is closed, clean up awaiting rpcs
	c.sentM.Lock()
	sent := c.sent
	c.sent = make(map[uint32]hrpc.Call)
	c.sentM.Unlock()

	log.WithFields(log.Fields{
		"client": c,
		"count":  len(sent),
	}).Debug("failing awaiting RPCs")

	// send error to awaiting rpcs
	for _, rpc := range sent {
		returnResult(rpc, nil, ErrClientClosed)
	}
}

func (c *client) registerRPC(rpc hrpc.Call) uint32 {
	currID := atomic.AddUint32(&c.id, 1)
	c.sentM.Lock()
	c.sent[currID] = rpc
	c.sentM.Unlock()
	return currID
}

func (c *client) unregisterRPC(id uint32) hrpc.Call {
	c.sentM.Lock()
	rpc := c.sent[id]
	delete(c.sent, id)
	c.sentM.Unlock()
	return rpc
}

func (c *client) processRPCs() {
	// TODO: flush when the size is too large
	// TODO: if multi has only one call, send that call instead
	m := newMulti(c.rpcQueueSize)
	defer func() {
		m.returnResults(nil, ErrClientClosed)
	}()

	flush := func(reason string) {
		if log.GetLevel() == log.DebugLevel {
			log.WithFields(log.Fields{
				"len":  m.len(),
				"addr": c.Addr(),
			}).Debug("flushing MultiRequest")
		}

		flushReasonCount.With(prometheus.Labels{
			"reason": reason,
		}).Inc()

		if err := c.trySend(m); err != nil {
			m.returnResults(nil, err)
		}

		// Start preparing for the next batch
		m = newMulti(c.rpcQueueSize)
	}

	for {
		// first loop is to accomodate request heavy workload
		// it will batch as long as conccurent writers are sending
		// new rpcs or until multi is filled up
		for {
			select {
			case <-c.done:
				return
			case rpc := <-c.rpcs:
				// have things queued up, batch them
				if !m.add(rpc) {
					// can still put more rpcs into batch
					continue
				}
			default:
				// no more rpcs queued up
			}
			break
		}

		if l := m.len(); l == 0 {
			// wait for the next batch
			select {
			case <-c.done:
				return
			case rpc := <-c.rpcs:
				m.add(rpc)
			}
			continue
		} else if l == c.rpcQueueSize || c.flushInterval == 0 {
			// batch is full, flush
			flush("queue full")
			continue
		}

		// second loop is to accomodate less frequent callers
		// that would like to maximize their batches at the expense
		// of waiting for flushInteval
		timer := time.NewTimer(c.flushInterval)
		reason := ""
		for {
			select {
			case <-c.done:
				return
			case <-timer.C:
				reason = "timeout"
				// time to flush
			case rpc := <-c.rpcs:
				if !m.add(rpc) {
					// can still put more rpcs into batch
					continue
				}
				reason = "queue full"
				// batch is full
				if !timer.Stop() {
					<-timer.C
				}
			}
			break
		}
		flush(reason)
	}
}

func returnResult(c hrpc.Call, msg proto.Message, err error) {
	if m, ok := c.(*multi); ok {
		m.returnResults(msg, err)
	} else {
		c.ResultChan() <- hrpc.RPCResult{Msg: msg, Error: err}
	}
}

func (c *client) trySend(rpc hrpc.Call) (err error) {
	if id, err := c.send(rpc); err != nil {
		if _, ok := err.(ServerError); ok {
			c.fail(err)
		}
		if r := c.unregisterRPC(id); r != nil {
			// we are the ones to unregister the rpc,
			// return err to notify client of it
			return err
		}
	}
	return nil
}

// readBufferSize is the size of the buffer responses are read through
// (dohyo patch): one read system call takes in a whole response, or several
// queued ones, instead of one call for the 4-byte length and one for the body.
const readBufferSize = 64 << 10

func (c *client) receiveRPCs() {
	// dohyo patch: responses are read through a buffer on the connection.
	// Only this goroutine reads the connection, so the buffer needs no lock;
	// errors reach it unchanged from the connection, except timeouts of a
	// deadline that no longer applies (deadline.go).
	r := bufio.NewReaderSize(deadlineReader{c}, readBufferSize)
	for {
		select {
		case <-c.done:
			return
		default:
			if err := c.receive(r); err != nil {
				if _, ok := err.(ServerError); ok {
					// fail the client and let the callers establish a new one
					c.fail(err)
					return
				}
				// in other cases we consider that the region client is healthy
				// and return the error to caller to let them retry
			}
		}
	}
}

// receive reads one response from r (dohyo patch: r, the connection's
// buffered reader, instead of the connection itself).
func (c *client) receive(r io.Reader) (err error) {
	var response proto.Message
	sz := &c.recvSize

	_, err = io.ReadFull(r, sz[:])
	if err != nil {
		return ServerError{err}
	}

	size := binary.BigEndian.Uint32(sz[:])
	b := make([]byte, size)

	_, err = io.ReadFull(r, b)
	if err != nil {
		return ServerError{err}
	}

	// unmarshal header (dohyo patch: by hand when it is a plain one, wire.go)
	headerBytes, headerLen := protowire.ConsumeBytes(b)
	if headerLen < 0 {
		return ServerError{fmt.Errorf("failed to decode the response header: %v",
			protowire.ParseError(headerLen))}
	}
	header, err := decodeResponseHeader(headerBytes)
	if err != nil {
		return ServerError{fmt.Errorf("failed to decode the response header: %v", err)}
	}

	if !header.hasCallID {
		return ErrMissingCallID
	}

	callID := header.callID
	rpc := c.unregisterRPC(callID)
	if rpc == nil {
		return ServerError{fmt.Errorf("got a response with an unexpected call ID: %d", callID)}
	}
	c.inFlightDown()

	select {
	case <-rpc.Context().Done():
		// context has expired, don't bother deserializing
		return
	default:
	}

	// Here we know for sure that we got a response for rpc we asked.
	// It's our responsibility to deliver the response or error to the
	// caller as we unregistered the rpc.
	defer func() { returnResult(rpc, response, err) }()

	if header.exception != nil {
		err = exceptionToError(*header.exception.ExceptionClassName, *header.exception.StackTrace)
		return
	}

	responseBytes, responseLen := protowire.ConsumeBytes(b[headerLen:])
	if responseLen < 0 {
		err = RetryableError{fmt.Errorf("failed to decode the response: %s",
			protowire.ParseError(responseLen))}
		return
	}

	decoded := false
	if d, ok := rpc.(hrpc.ResponseDecoder); ok { // dohyo patch (hrpc/wire.go)
		response, decoded = d.DecodeResponse(responseBytes)
	}
	if !decoded {
		response = rpc.NewResponse()
		if err = proto.Unmarshal(responseBytes, response); err != nil {
			err = RetryableError{fmt.Errorf("failed to decode the response: %s", err)}
			return
		}
	}

	cellsLen := header.cellLen
	if d, ok := rpc.(canDeserializeCellBlocks); cellsLen > 0 && ok {
		b := b[size-cellsLen:]
		if c.compressor != nil {
			b, err = c.compressor.decompressCellblocks(b)
			if err != nil {
				err = RetryableError{fmt.Errorf("failed to decompress the response: %s", err)}
				return
			}
		}
		var nread uint32
		nread, err = d.DeserializeCellBlocks(response, b)
		if err != nil {
			err = RetryableError{fmt.Errorf("failed to decode the response: %s", err)}
			return
		}

		if int(nread) < len(b) {
			err = RetryableError{
				fmt.Errorf("short read: buffer length %d, read %d", len(b), nread)}
			return
		}
	}
	return
}

func exceptionToError(class, stack string) error {
	err := fmt.Errorf("HBase Java exception %s:\n%s", class, stack)
	if s, ok := javaRetryableExceptions[class]; ok && strings.Contains(stack, s) {
		return RetryableError{err}
	} else if s, ok := javaRegionExceptions[class]; ok && strings.Contains(stack, s) {
		return NotServingRegionError{err}
	} else if s, ok := javaServerExceptions[class]; ok && strings.Contains(stack, s) {
		return ServerError{err}
	}
	return err
}

// write sends the given buffer to the RegionServer.
func (c *client) write(buf []byte) error {
	_, err := c.conn.Write(buf)
	return err
}

// regionClientVersion is the client version a region server connection
// announces (dohyo patch). A region server answers a Get with its cells in
// the response's cell block only for clients that announce version 1.3 or
// later (RSRpcServices.get); without a version it builds one protobuf Cell
// per cell and this client decodes them through protobuf reflection. This
// client decodes Get cell blocks (Get.DeserializeCellBlocks), as it does
// for scans and multi-gets, which HBase sends as cell blocks regardless.
// The other region server behaviours keyed on a version at or below 1.3 are
// RetryImmediatelyException for busy regions (1.2, retried by this client
// as before, see javaRetryableExceptions) and a RequestTooBigException
// answer instead of a bare close for oversized requests (1.3). Master
// connections announce nothing: the master keys its procedure latches on
// the client version, and the admin calls keep their behaviour.
var regionClientVersion = &pb.VersionInfo{
	Version:      proto.String("1.3.0"),
	Url:          proto.String("https://github.com/tsuna/gohbase"),
	Revision:     proto.String("ee78e2db30c3"),
	User:         proto.String("gohbase"),
	Date:         proto.String("2022-11-18"),
	SrcChecksum:  proto.String(""),
	VersionMajor: proto.Uint32(1),
	VersionMinor: proto.Uint32(3),
}

// sendHello sends the "hello" message needed when opening a new connection.
func (c *client) sendHello() error {
	connHeader := &pb.ConnectionHeader{
		UserInfo: &pb.UserInformation{
			EffectiveUser: proto.String(c.effectiveUser),
		},
		ServiceName:         proto.String(string(c.ctype)),
		CellBlockCodecClass: proto.String("org.apache.hadoop.hbase.codec.KeyValueCodec"),
	}
	if c.ctype == RegionClient {
		// dohyo patch: say which protocol features this client speaks.
		connHeader.VersionInfo = regionClientVersion
	}
	if c.compressor != nil {
		// if we have compression enabled, specify the compressor class
		connHeader.CellBlockCompressorClass = proto.String(c.compressor.CellBlockCompressorClass())
	}
	data, err := proto.Marshal(connHeader)
	if err != nil {
		return fmt.Errorf("failed to marshal connection header: %s", err)
	}

	const header = "HBas\x00\x50" // \x50 = Simple Auth.
	buf := make([]byte, 0, len(header)+4+len(data))
	buf = append(buf, header...)
	buf = buf[:len(header)+4]
	binary.BigEndian.PutUint32(buf[6:], uint32(len(data)))
	buf = append(buf, data...)
	return c.write(buf)
}

// send sends an RPC out to the wire.
// Returns the response (for now, as the call is synchronous).
func (c *client) send(rpc hrpc.Call) (uint32, error) {
	var err error
	var request proto.Message
	var cellblocks net.Buffers
	var cellblocksLen uint32
	meta := false

	// dohyo patch: a call that writes its cell block itself (uncompressed)
	// has it appended to the same buffer as its header and request.
	var blockWriter hrpc.CellBlockAppender
	if a, ok := rpc.(hrpc.CellBlockAppender); ok && c.compressor == nil {
		if n, ok := a.CellBlockLen(); ok {
			blockWriter, cellblocksLen, meta = a, n, true
		}
	}

	if s, ok := rpc.(canSerializeCellBlocks); ok && blockWriter == nil && s.CellBlocksEnabled() {
		// request can be serialized to cellblocks
		request, cellblocks, cellblocksLen = s.SerializeCellBlocks()

		if c.compressor != nil {
			// we have compressor, encode the cellblocks
			compressed := c.compressor.compressCellblocks(cellblocks, cellblocksLen)
			defer freeBuffer(compressed)
			cellblocks = net.Buffers{compressed}
			cellblocksLen = uint32(len(compressed))
		}

		// specify cellblocks length
		meta = true
	}

	// we have to register rpc after we marshal because
	// registered rpc can fail before it was even sent
	// in all the cases where c.fail() is called.
	// If that happens, client can retry sending the rpc
	// again potentially changing it's contents.
	//
	// Wire protocol:
	//
	// 4 byte total length
	//
	// Protobuf data:
	// varint length of header
	// <header>
	// varint length of request
	// <request>
	//
	// Cellblocks:
	// <cellblocks>
	//
	// dohyo patch: the request (by hand for the calls that can: point Gets,
	// and a CellBlockAppender's cell block too) is encoded into a pooled
	// buffer before the call is registered, behind room for the length
	// and the header, which is written by hand (wire.go) once the call id
	// is known; writeGrouped copies the frame.
	name := rpc.Name()
	room := 4 + requestHeaderRoom(name)
	sb := c.sendBufs.Get(512)
	defer c.sendBufs.Put(sb, maxSendBuf)
	b := append(*sb, make([]byte, room)...)
	var encErr error
	written := false
	if blockWriter != nil {
		b = blockWriter.AppendCellBlockRequest(b)
		at := len(b)
		b = blockWriter.AppendCellBlock(b)
		if uint32(len(b)-at) != cellblocksLen {
			encErr = fmt.Errorf("failed to marshal request: cell block of %d bytes, announced %d",
				len(b)-at, cellblocksLen)
		}
		written = true
	} else if !meta {
		// plain protobuf request: by hand when the call can
		if a, ok := rpc.(hrpc.ProtoAppender); ok {
			b, written = a.AppendProto(b)
		}
		if !written {
			request = rpc.ToProto()
		}
	}
	if !written {
		if request == nil {
			encErr = errors.New("failed to marshal request: proto: Marshal called with nil")
		} else {
			b = protowire.AppendVarint(b, uint64(proto.Size(request)))
			b, err = proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(b, request)
			if err != nil {
				encErr = fmt.Errorf("failed to marshal request: %s", err)
			}
		}
	}
	*sb = b
	id := c.registerRPC(rpc)
	if encErr != nil {
		return id, encErr
	}

	var hb [64]byte
	h := appendRequestHeader(hb[:0], id, name, meta, cellblocksLen)
	start := room - 4 - len(h)
	copy(b[start+4:room], h)
	total := uint32(len(b) - start - 4)
	if blockWriter == nil {
		total += cellblocksLen // sent from cellblocks, after b
	}
	binary.BigEndian.PutUint32(b[start:], total)
	b = b[start:]

	// dohyo patch: written with whatever other senders queue meanwhile
	// (coalesce.go).
	if err = c.writeGrouped(b, cellblocks); err != nil {
		return id, ServerError{err}
	}

	if err := c.inFlightUp(); err != nil {
		return id, ServerError{err}
	}
	return id, nil
}

func (c *client) MarshalJSON() ([]byte, error) {

	type Address struct {
		Network string
		Address string
	}

	// the status of the Done channel as a string. Closed if its done, Not Closed o.w
	var done_status string
	if c.done != nil {
		select {
		case <-c.done:
			done_status = "Closed"
		default:
			done_status = "Not Closed"
		}
	}

	c.inFlightM.Lock()
	inFlight := c.inFlight
	c.inFlightM.Unlock()

	// if conn is nil then we don't want to panic. So just get the addresses if conn is not nil
	var localAddr, remoteAddr Address
	if c.conn != nil {
		localAddress := c.conn.LocalAddr()
		remoteAddress := c.conn.RemoteAddr()
		localAddr = Address{localAddress.Network(), localAddress.String()}
		remoteAddr = Address{remoteAddress.Network(), remoteAddress.String()}
	}

	state := struct {
		ConnectionLocalAddress  Address
		ConnectionRemoteAddress Address
		RegionServerAddress     string
		ClientType              ClientType
		InFlight                uint32
		Id                      uint32
		Done_status             string
	}{
		ConnectionLocalAddress:  localAddr,
		ConnectionRemoteAddress: remoteAddr,
		RegionServerAddress:     c.addr,
		ClientType:              c.ctype,
		InFlight:                inFlight,
		Id:                      c.id,
		Done_status:             done_status,
	}

	return json.Marshal(state)
}
