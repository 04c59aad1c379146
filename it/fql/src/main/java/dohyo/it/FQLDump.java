package dohyo.it;

import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.ValueIn;
import net.openhft.chronicle.wire.WireIn;

/**
 * Prints every entry of a full query log directory as one JSON line, read
 * with Chronicle Queue's tailer (the reference for dohyo's Go reader).
 * Byte fields are hex; absent or null strings are JSON null.
 *
 * usage: FQLDump DIR [ROLL_CYCLE]
 */
public final class FQLDump
{
    public static void main(String[] args)
    {
        File dir = new File(args[0]);
        String roll = args.length > 1 ? args[1] : "HOURLY";
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (ChronicleQueue q = SingleChronicleQueueBuilder.single(dir).rollCycle(RollCycles.valueOf(roll)).build())
        {
            ExcerptTailer tailer = q.createTailer();
            StringBuilder line = new StringBuilder();
            while (tailer.readDocument(w -> entry(w, line)))
            {
                out.println(line);
                line.setLength(0);
            }
        }
        out.flush();
    }

    private static void entry(WireIn w, StringBuilder o)
    {
        o.append('{');
        num(o, "version", w.read("version").int64()).append(',');
        String type = w.read("type").text();
        str(o, "type", type).append(',');
        num(o, "start", w.read("query-start-time").int64()).append(',');
        num(o, "protocol", w.read("protocol-version").int32()).append(',');
        str(o, "options", hex(w.read("query-options").bytes())).append(',');
        num(o, "generated_ts", w.read("generated-timestamp").int64()).append(',');
        num(o, "generated_now", w.read("generated-now-in-seconds").int64()).append(',');
        str(o, "keyspace", w.read("keyspace").text());
        if ("single-query".equals(type))
        {
            o.append(',');
            str(o, "query", w.read("query").text());
        }
        else if ("batch".equals(type))
        {
            o.append(',');
            str(o, "batch_type", w.read("batch-type").text()).append(",\"queries\":[");
            ValueIn in = w.read("queries");
            int n = in.int32();
            for (int i = 0; i < n; i++)
                quote(o.append(i > 0 ? "," : ""), in.text());
            o.append("],\"values\":[");
            in = w.read("values");
            n = in.int32();
            for (int i = 0; i < n; i++)
            {
                o.append(i > 0 ? ",[" : "[");
                int m = in.int32();
                for (int j = 0; j < m; j++)
                    quote(o.append(j > 0 ? "," : ""), hex(in.bytes()));
                o.append(']');
            }
            o.append(']');
        }
        o.append('}');
    }

    private static StringBuilder num(StringBuilder o, String k, long v)
    {
        return o.append('"').append(k).append("\":").append(v);
    }

    private static StringBuilder str(StringBuilder o, String k, String v)
    {
        o.append('"').append(k).append("\":");
        return quote(o, v);
    }

    private static StringBuilder quote(StringBuilder o, String v)
    {
        if (v == null)
            return o.append("null");
        o.append('"');
        for (int i = 0; i < v.length(); i++)
        {
            char c = v.charAt(i);
            if (c == '"' || c == '\\')
                o.append('\\').append(c);
            else if (c < 0x20)
                o.append(String.format("\\u%04x", (int) c));
            else
                o.append(c);
        }
        return o.append('"');
    }

    private static String hex(byte[] b)
    {
        if (b == null)
            return null;
        StringBuilder s = new StringBuilder(b.length * 2);
        for (byte x : b)
            s.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
        return s.toString();
    }
}
