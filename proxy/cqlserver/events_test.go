package cqlserver

import (
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
