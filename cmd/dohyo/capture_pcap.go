package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/pcap"
	"github.com/dohyo/dohyo/capture/wire"
)

// `dohyo capture import --pcap` and `dohyo capture sniff`: CQL traffic
// captured off the wire (capture/pcap) decoded into records
// (capture/wire).

// wireFlags are the decoder options both commands share.
type wireFlags struct {
	ports        []uint
	maxConnBytes int
	maxBytes     int
	resolve      string
}

func (f *wireFlags) add(cmd *cobra.Command) {
	cmd.Flags().UintSliceVar(&f.ports, "port", []uint{9042}, "CQL server port(s): connections to them are decoded")
	cmd.Flags().IntVar(&f.maxConnBytes, "max-conn-bytes", 32<<20, "memory cap per connection (out-of-order segments, partial frames); past it the connection is skipped")
	cmd.Flags().IntVar(&f.maxBytes, "max-bytes", 512<<20, "memory cap for all connections together")
	cmd.Flags().StringVar(&f.resolve, "resolve-prepared", "", "cassandra://host:port: look up prepared ids the capture never saw prepared in system.prepared_statements (Cassandra 4.0+)")
}

func (f *wireFlags) config() (wire.Config, error) {
	cfg := wire.DefaultConfig()
	cfg.Ports = nil
	for _, p := range f.ports {
		if p == 0 || p > 65535 {
			return cfg, fmt.Errorf("--port %d: not a TCP port", p)
		}
		cfg.Ports = append(cfg.Ports, uint16(p))
	}
	cfg.MaxConnBytes, cfg.MaxTotalBytes = f.maxConnBytes, f.maxBytes
	if f.resolve != "" {
		addr, err := resolveAddr(f.resolve)
		if err != nil {
			return cfg, err
		}
		cfg.Resolve = func(ctx context.Context, ids [][]byte) (map[string]wire.Prepared, error) {
			return resolvePrepared(ctx, addr)
		}
	}
	return cfg, nil
}

// resolveAddr parses cassandra://host:port.
func resolveAddr(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "cassandra" || u.Host == "" {
		return "", fmt.Errorf("--resolve-prepared %q: want cassandra://host:port", s)
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "9042"), nil
	}
	return u.Host, nil
}

// resolvePrepared reads a server's prepared statements cache
// (system.prepared_statements, Cassandra 4.0+).
func resolvePrepared(ctx context.Context, addr string) (map[string]wire.Prepared, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", port, err)
	}
	cluster := gocql.NewCluster(host)
	cluster.Port = p
	cluster.Timeout, cluster.ConnectTimeout = 10*time.Second, 10*time.Second
	cluster.DisableInitialHostLookup = true
	cluster.Consistency = gocql.One
	sess, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer sess.Close()
	iter := sess.Query("SELECT prepared_id, logged_keyspace, query_string FROM system.prepared_statements").WithContext(ctx).Iter()
	out := map[string]wire.Prepared{}
	var id []byte
	var ks, q string
	for iter.Scan(&id, &ks, &q) {
		out[string(id)] = wire.Prepared{Query: q, Keyspace: ks}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system.prepared_statements of %s: %w", addr, err)
	}
	return out, nil
}

// appendSink writes decoded records into a capture writer.
func appendSink(ctx context.Context, w recordAppender) wire.Sink {
	return func(r *capture.Record) error { return w.Append(ctx, r) }
}

// pcapImport is `capture import --pcap`.
type pcapImport struct {
	files      []string
	singlePass bool
	flags      wireFlags
}

func addPcapImport(cmd *cobra.Command) *pcapImport {
	p := &pcapImport{}
	cmd.Flags().StringArrayVar(&p.files, "pcap", nil, "pcap or pcapng file written by tcpdump -w (repeat for rotated files, in order)")
	cmd.Flags().BoolVar(&p.singlePass, "single-pass", false, "read the files once: EXECUTEs of statements prepared later in the capture are written at the end, out of time order")
	p.flags.add(cmd)
	return p
}

func (p *pcapImport) flag() string   { return "--pcap" }
func (p *pcapImport) selected() bool { return len(p.files) > 0 }

func (p *pcapImport) run(ctx context.Context, cmd *cobra.Command, args []string, dst importOut) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments %q: give each file with --pcap", args)
	}
	cfg, err := p.flags.config()
	if err != nil {
		return err
	}
	var total int64
	for _, f := range p.files {
		st, err := os.Stat(f)
		if err != nil {
			return err
		}
		total += st.Size()
	}
	progress := newProgress(cmd.ErrOrStderr(), total)
	if !p.singlePass {
		// First pass: the statements prepared anywhere in the capture,
		// so that EXECUTEs before their PREPARE keep their time order.
		progress.phase = "pass 1/2 (prepared statements)"
		first := wire.NewDecoder(cfg, nil)
		if _, err := p.readFiles(ctx, first, progress); err != nil {
			return err
		}
		cfg.Prepared = first.Prepared()
		progress.phase, progress.base = "pass 2/2", 0
	}
	d := wire.NewDecoder(cfg, appendSink(ctx, dst))
	problems, err := p.readFiles(ctx, d, progress)
	if err != nil {
		return err
	}
	if err := d.Finish(ctx); err != nil {
		return err
	}
	progress.done()
	st := d.Stats()
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "imported %d records from %d file(s) into %s\n", st.Records, len(p.files), dst.dir)
	writeWireSummary(out, &st, nil)
	for _, pr := range problems {
		fmt.Fprintf(out, "warning: %s\n", pr)
	}
	return nil
}

// readFiles feeds every file to d. A file cut short (tcpdump killed) is a
// warning; a malformed one ends that file with a warning after the
// packets before the damage. Other errors (the sink's, I/O) are
// returned.
func (p *pcapImport) readFiles(ctx context.Context, d *wire.Decoder, progress *progress) (problems []string, err error) {
	for _, name := range p.files {
		f, err := os.Open(name)
		if err != nil {
			return problems, err
		}
		r, err := pcap.NewReader(f)
		if err != nil {
			f.Close()
			return problems, fmt.Errorf("%s: %w", name, err)
		}
		perr := func() error {
			defer f.Close()
			for {
				pkt, err := r.Next()
				if errors.Is(err, io.EOF) {
					progress.base += r.Offset()
					return nil
				}
				if err != nil {
					progress.base += r.Offset()
					return err
				}
				if err := d.Packet(pkt); err != nil {
					return err
				}
				if r.Packets()%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
					st := d.Stats()
					progress.update(progress.base+r.Offset(), &st)
				}
			}
		}()
		var fe *pcap.FormatError
		switch {
		case perr == nil:
		case errors.Is(perr, pcap.ErrTruncated), errors.As(perr, &fe):
			problems = append(problems, fmt.Sprintf("%s: %v", name, perr))
		default:
			return problems, fmt.Errorf("%s: %w", name, perr)
		}
	}
	return problems, nil
}

// progress prints a progress line on long inputs, at most every two
// seconds.
type progress struct {
	out   io.Writer
	total int64
	base  int64 // bytes of the files already read
	phase string
	start time.Time
	last  time.Time
	shown bool
}

func newProgress(out io.Writer, total int64) *progress {
	now := time.Now()
	return &progress{out: out, total: total, start: now, last: now}
}

func (p *progress) update(read int64, st *wire.Stats) {
	now := time.Now()
	if now.Sub(p.last) < 2*time.Second {
		return
	}
	p.last, p.shown = now, true
	pct := ""
	if p.total > 0 {
		pct = fmt.Sprintf("%.0f%% of %d MB, ", 100*float64(read)/float64(p.total), p.total>>20)
	}
	fmt.Fprintf(p.out, "\r%s %s%d packets, %d connections, %d records, %s   ",
		p.phase, pct, st.Packets, st.Connections, st.Records, time.Since(p.start).Round(time.Second))
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprintln(p.out)
	}
}

// writeWireSummary prints what a decoder saw and what it skipped.
func writeWireSummary(out io.Writer, st *wire.Stats, live *pcap.LiveStats) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "packets\t%d (other ports %d", st.Packets, st.OtherPorts)
	if len(st.NotTCP) > 0 {
		fmt.Fprintf(w, "; not TCP: %s", wire.Reasons(st.NotTCP))
	}
	fmt.Fprintln(w, ")")
	if live != nil {
		fmt.Fprintf(w, "kernel\t%d received, %d dropped (buffer full)\n", live.Received, live.Dropped)
	}
	fmt.Fprintf(w, "connections\t%d (open before the capture %d, skipped %d)\n", st.Connections, st.MidStream, st.SkippedTotal())
	if len(st.Skipped) > 0 {
		fmt.Fprintf(w, "skipped\t%s\n", wire.Reasons(st.Skipped))
	}
	fmt.Fprintf(w, "reassembly\t%d bytes, out of order %d, retransmitted %d\n", st.Bytes, st.OutOfOrder, st.Retransmitted)
	fmt.Fprintf(w, "frames\t%d (malformed %d)\n", st.Frames, st.Malformed)
	fmt.Fprintf(w, "requests\t%d answered (unanswered %d, responses without request %d)\n", st.Requests, st.Unanswered, st.Unmatched)
	fmt.Fprintf(w, "records\t%d imported", st.Records)
	if len(st.Resolved) > 0 {
		fmt.Fprintf(w, " (prepared ids resolved: %s)", wire.Reasons(st.Resolved))
	}
	fmt.Fprintf(w, ", %d unresolved EXECUTEs not imported\n", st.Unresolved)
	w.Flush()
}

func newCaptureSniffCmd() *cobra.Command {
	var (
		iface, outDir, node string
		duration            time.Duration
		bufBytes            int
		flags               wireFlags
	)
	cmd := &cobra.Command{
		Use:   "sniff --interface IF --out DIR [--port 9042] [--duration D]",
		Short: "Capture CQL traffic off the wire (Linux AF_PACKET, needs CAP_NET_RAW) into capture segments",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if iface == "" || outDir == "" {
				return errors.New("--interface and --out are required")
			}
			cfg, err := flags.config()
			if err != nil {
				return err
			}
			live, err := pcap.OpenLive(pcap.LiveConfig{Interface: iface, Ports: cfg.Ports, BufferBytes: bufBytes})
			if err != nil {
				return err
			}
			defer live.Close()
			w, err := newImportWriter(outDir, node, "")
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "sniffing %s ports %v into %s (Ctrl-C to stop)\n", iface, cfg.Ports, outDir)
			// The writer outlives the capture's context: what was decoded
			// is written after it ends.
			wctx := context.WithoutCancel(cmd.Context())
			d := wire.NewDecoder(cfg, appendSink(wctx, w))
			err = sniff(ctx, live, d, newProgress(cmd.ErrOrStderr(), 0))
			if err == nil {
				err = d.Finish(wctx)
			}
			if cerr := w.Close(wctx); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			st, ls := d.Stats(), live.Stats()
			fmt.Fprintf(cmd.OutOrStdout(), "captured %d records into %s\n", st.Records, outDir)
			writeWireSummary(cmd.OutOrStdout(), &st, &ls)
			return nil
		},
	}
	cmd.Flags().StringVar(&iface, "interface", "", "network interface (lo, eth0, ...)")
	cmd.Flags().StringVar(&outDir, "out", "", "directory for the captured segments")
	cmd.Flags().StringVar(&node, "node", "sniff", "node id of the segments")
	cmd.Flags().DurationVar(&duration, "duration", 0, "stop after this long (default: until interrupted)")
	cmd.Flags().IntVar(&bufBytes, "buffer-bytes", 32<<20, "kernel receive buffer; packets arriving when it is full are dropped and counted, traffic is never delayed")
	flags.add(cmd)
	return cmd
}

// sniff decodes live packets until ctx ends.
func sniff(ctx context.Context, live *pcap.Live, d *wire.Decoder, progress *progress) error {
	defer progress.done()
	progress.phase = "sniffing:"
	for n := uint64(1); ; n++ {
		pkt, err := live.NextContext(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if err := d.Packet(pkt); err != nil {
			return err
		}
		if n%1024 == 0 {
			st := d.Stats()
			progress.update(0, &st)
		}
	}
}
