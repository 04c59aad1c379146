package cqlserver

import (
	"net"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

func TestSchemaChangeEvents(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			listener := ts.pipeClient(t, v)
			listener.startup("lz4")
			m := listener.do(&message.Register{EventTypes: []primitive.EventType{
				primitive.EventTypeSchemaChange, primitive.EventTypeTopologyChange, primitive.EventTypeStatusChange}}).Body.Message
			if _, ok := m.(*message.Ready); !ok {
				t.Fatalf("REGISTER: %v", m)
			}
			quiet := readyClient(t, ts, v) // not registered: gets no events

			ddl := readyClient(t, ts, v)
			m = ddl.query("CREATE TABLE ks.events (k int PRIMARY KEY)", nil)
			res, ok := m.(*message.SchemaChangeResult)
			if !ok || res.ChangeType != primitive.SchemaChangeTypeCreated || res.Target != primitive.SchemaChangeTargetTable ||
				res.Keyspace != "ks" || res.Object != "events" {
				t.Fatalf("DDL result: %v", m)
			}
			f := listener.read()
			ev, ok := f.Body.Message.(*message.SchemaChangeEvent)
			if f.Header.StreamId != -1 || !ok || ev.ChangeType != primitive.SchemaChangeTypeCreated ||
				ev.Target != primitive.SchemaChangeTargetTable || ev.Keyspace != "ks" || ev.Object != "events" {
				t.Fatalf("event on stream %d: %v", f.Header.StreamId, f.Body.Message)
			}
			ddl.query("CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
			ev, ok = listener.read().Body.Message.(*message.SchemaChangeEvent)
			if !ok || ev.Target != primitive.SchemaChangeTargetKeyspace || ev.Keyspace != "other" {
				t.Fatalf("keyspace event: %v", ev)
			}
			// The next frame the quiet connection sees answers its own query.
			id := quiet.send(&message.Options{})
			if f := quiet.read(); f.Header.StreamId != id {
				t.Errorf("unregistered connection got %v on stream %d", f.Body.Message, f.Header.StreamId)
			}
		})
	}
}

// Node events of tier membership reach the connections registered for
// their type, with the instance's address; others get none.
func TestNodeEvents(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			listener := ts.pipeClient(t, v)
			listener.startup("")
			if m := listener.do(&message.Register{EventTypes: []primitive.EventType{
				primitive.EventTypeTopologyChange, primitive.EventTypeStatusChange}}).Body.Message; m == nil {
				t.Fatal("REGISTER: no answer")
			}
			schemaOnly := ts.pipeClient(t, v)
			schemaOnly.startup("")
			schemaOnly.do(&message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}})

			if err := ts.srv.PushNodeEvent(NodeNew, "127.0.0.9:9042"); err != nil {
				t.Fatal(err)
			}
			if err := ts.srv.PushNodeEvent(NodeDown, "[::1]:9043"); err != nil {
				t.Fatal(err)
			}
			if err := ts.srv.PushNodeEvent("MOVED", "127.0.0.9:9042"); err == nil {
				t.Error("an unknown node event was accepted")
			}
			f := listener.read()
			topo, ok := f.Body.Message.(*message.TopologyChangeEvent)
			if f.Header.StreamId != -1 || !ok || topo.ChangeType != primitive.TopologyChangeTypeNewNode ||
				!topo.Address.Addr.Equal(net.ParseIP("127.0.0.9")) || topo.Address.Port != 9042 {
				t.Fatalf("topology event: %v", f.Body.Message)
			}
			st, ok := listener.read().Body.Message.(*message.StatusChangeEvent)
			if !ok || st.ChangeType != primitive.StatusChangeTypeDown || !st.Address.Addr.Equal(net.IPv6loopback) || st.Address.Port != 9043 {
				t.Fatalf("status event: %v", st)
			}
			id := schemaOnly.send(&message.Options{})
			if f := schemaOnly.read(); f.Header.StreamId != id {
				t.Errorf("connection registered for SCHEMA_CHANGE only got %v", f.Body.Message)
			}
		})
	}
}
