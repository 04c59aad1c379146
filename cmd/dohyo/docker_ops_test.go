package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"gopkg.in/yaml.v3"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/metrics"
)

// repoRoot is the module root (the Docker build context).
const repoRoot = "../.."

// dockerfile is the parsed Dockerfile: instructions with continuation
// lines joined, and ARG defaults.
type dockerfile struct {
	instrs []string
	args   map[string]string
}

func parseDockerfile(t *testing.T) dockerfile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := dockerfile{args: map[string]string{}}
	cur := ""
	for _, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur == "") {
			continue
		}
		cur += " " + strings.TrimSuffix(trimmed, `\`)
		if strings.HasSuffix(trimmed, `\`) {
			continue
		}
		instr := strings.TrimSpace(cur)
		cur = ""
		df.instrs = append(df.instrs, instr)
		if rest, ok := strings.CutPrefix(instr, "ARG "); ok {
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				df.args[k] = v
			}
		}
	}
	return df
}

// find returns the instructions starting with keyword.
func (df dockerfile) find(keyword string) []string {
	var out []string
	for _, in := range df.instrs {
		if strings.HasPrefix(in, keyword+" ") {
			out = append(out, strings.TrimSpace(strings.TrimPrefix(in, keyword+" ")))
		}
	}
	return out
}

// expand substitutes ${VAR} and $VAR with ARG defaults.
func (df dockerfile) expand(s string) string {
	return os.Expand(s, func(k string) string { return df.args[k] })
}

func port(t *testing.T, addr string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDockerfile runs the Dockerfile's build command (Docker cannot run
// here) and checks the image's contract: a static binary that runs, the
// EXPOSEd ports equal the default config's, the default command serves on
// them, the health check uses the binary's own probe, a non-root user.
func TestDockerfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary")
	}
	df := parseDockerfile(t)
	var build string
	for _, run := range df.find("RUN") {
		if strings.Contains(run, "go build") {
			build = df.expand(run)
		}
	}
	if build == "" {
		t.Fatal("no RUN ... go build ... in the Dockerfile")
	}
	for _, want := range []string{"CGO_ENABLED=0", "GOOS=linux", "-trimpath", "./cmd/dohyo"} {
		if !strings.Contains(build, want) {
			t.Errorf("build command %q lacks %s", build, want)
		}
	}
	out := regexp.MustCompile(`-o\s+(\S+)`).FindStringSubmatch(build)
	if out == nil {
		t.Fatalf("build command %q has no -o", build)
	}
	bin := filepath.Join(t.TempDir(), "dohyo")
	cmdline := strings.Replace(build, out[0], "-o "+bin, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", cmdline)
	cmd.Dir = repoRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmdline, err, b)
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary is dynamically linked (has an ELF interpreter); distroless/static needs a static one")
		}
	}
	if wantArch := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[df.args["TARGETARCH"]]; f.Machine != wantArch {
		t.Errorf("binary for %v, want %s", f.Machine, df.args["TARGETARCH"])
	}
	if df.args["TARGETARCH"] == runtime.GOARCH {
		v, err := exec.Command(bin, "version").CombinedOutput()
		if err != nil || !strings.Contains(string(v), "dohyo "+df.args["VERSION"]) {
			t.Errorf("dohyo version: %v\n%s", err, v)
		}
	}

	// Ports: EXPOSE == the defaults' ports == the CMD's listen addresses.
	def := DefaultConfig()
	wantPorts := []string{port(t, def.CQLAddr), port(t, def.HTTPAddr)}
	var exposed []string
	for _, e := range df.find("EXPOSE") {
		exposed = append(exposed, strings.Fields(e)...)
	}
	slices.Sort(exposed)
	slices.Sort(wantPorts)
	if !slices.Equal(exposed, wantPorts) {
		t.Errorf("EXPOSE %v, want the default ports %v", exposed, wantPorts)
	}
	var cmdArgs []string
	if c := df.find("CMD"); len(c) != 1 || json.Unmarshal([]byte(c[0]), &cmdArgs) != nil {
		t.Fatalf("want one exec-form CMD, got %v", c)
	}
	fs := parseArgs(t, cmdArgs)
	if fs.CQLAddr != "0.0.0.0:"+port(t, def.CQLAddr) || fs.HTTPAddr != "0.0.0.0:"+port(t, def.HTTPAddr) {
		t.Errorf("CMD listens on %s and %s, want all interfaces on the default ports", fs.CQLAddr, fs.HTTPAddr)
	}
	hc := df.find("HEALTHCHECK")
	if len(hc) != 1 || !strings.Contains(hc[0], `"health"`) || !strings.Contains(hc[0], ":"+port(t, def.HTTPAddr)+"/health/liveness") {
		t.Errorf("HEALTHCHECK %v does not probe /health/liveness with dohyo health", hc)
	}
	if u := df.find("USER"); len(u) != 1 || strings.HasPrefix(u[0], "0") || strings.HasPrefix(u[0], "root") {
		t.Errorf("USER %v, want a non-root user", u)
	}
	ignore, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil || !strings.Contains(string(ignore), "it/.cache") || !strings.Contains(string(ignore), ".git") {
		t.Errorf(".dockerignore must keep it/.cache and .git out of the build context: %v", err)
	}
}

// parseArgs applies `serve` arguments (after the subcommand) to a config.
func parseArgs(t *testing.T, args []string) Config {
	t.Helper()
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("CMD %v does not run serve", args)
	}
	cfg, err := parseConfig(t, "", nil, args[1:]...)
	if err != nil {
		t.Fatalf("CMD %v: %v", args, err)
	}
	return cfg
}

// k8sDoc is the subset of Kubernetes objects the test reads.
type k8sDoc struct {
	Kind     string                `yaml:"kind"`
	Metadata struct{ Name string } `yaml:"metadata"`
	Data     map[string]string     `yaml:"data"`
	Spec     struct {
		Replicas int `yaml:"replicas"`
		Ports    []struct {
			Name string `yaml:"name"`
			Port int    `yaml:"port"`
		} `yaml:"ports"`
		Template struct {
			Spec struct {
				TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
				Containers                    []struct {
					Env []struct {
						Name      string `yaml:"name"`
						Value     string `yaml:"value"`
						ValueFrom struct {
							FieldRef struct {
								FieldPath string `yaml:"fieldPath"`
							} `yaml:"fieldRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					Ports []struct {
						Name          string `yaml:"name"`
						ContainerPort int    `yaml:"containerPort"`
					} `yaml:"ports"`
					ReadinessProbe struct {
						HTTPGet struct{ Path string } `yaml:"httpGet"`
					} `yaml:"readinessProbe"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
					LivenessProbe struct {
						HTTPGet struct{ Path string } `yaml:"httpGet"`
					} `yaml:"livenessProbe"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestKubernetesManifests checks deploy/kubernetes against the code: the
// ConfigMap's config loads (unknown keys fail), three replicas with a node
// id from the pod name, probes on the real health paths, ports that match
// the configuration, a grace period longer than shutdown-grace.
func TestKubernetesManifests(t *testing.T) {
	dir := filepath.Join(repoRoot, "deploy", "kubernetes")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	docs := map[string]k8sDoc{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var d k8sDoc
			if err := dec.Decode(&d); err != nil {
				break
			}
			if d.Kind != "" {
				docs[d.Kind] = d
			}
		}
	}
	cm, dep, svc := docs["ConfigMap"], docs["Deployment"], docs["Service"]
	if cm.Kind == "" || dep.Kind == "" || svc.Kind == "" {
		t.Fatalf("want a ConfigMap, a Deployment and a Service in %s, got %v", dir, docs)
	}
	file := filepath.Join(t.TempDir(), "dohyo.yaml")
	writeFile(t, file, []byte(cm.Data["dohyo.yaml"]))
	cfg, err := parseConfig(t, file, nil)
	if err != nil {
		t.Fatalf("the ConfigMap's dohyo.yaml: %v", err)
	}
	if dep.Spec.Replicas != 3 {
		t.Errorf("replicas = %d, want 3", dep.Spec.Replicas)
	}
	spec := dep.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value + e.ValueFrom.FieldRef.FieldPath
	}
	if env["DOHYO_NODE_ID"] != "metadata.name" {
		t.Errorf("DOHYO_NODE_ID = %q, want the pod name (fieldRef metadata.name)", env["DOHYO_NODE_ID"])
	}
	if env["DOHYO_CONFIG"] == "" {
		t.Error("DOHYO_CONFIG is not set")
	}
	if c.ReadinessProbe.HTTPGet.Path != "/health/readiness" || c.LivenessProbe.HTTPGet.Path != "/health/liveness" {
		t.Errorf("probes %q / %q", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if env["POD_IP"] != "status.podIP" || env["DOHYO_ADVERTISE_ADDR"] != "$(POD_IP):"+strconv.Itoa(ports["cql"]) {
		t.Errorf("advertise-addr: POD_IP = %q, DOHYO_ADVERTISE_ADDR = %q, want the pod IP and the CQL port",
			env["POD_IP"], env["DOHYO_ADVERTISE_ADDR"])
	}
	if strconv.Itoa(ports["cql"]) != port(t, cfg.CQLAddr) || strconv.Itoa(ports["http"]) != port(t, cfg.HTTPAddr) {
		t.Errorf("container ports %v do not match the config's %s and %s", ports, cfg.CQLAddr, cfg.HTTPAddr)
	}
	svcPorts := map[string]int{}
	for _, p := range svc.Spec.Ports {
		svcPorts[p.Name] = p.Port
	}
	if svcPorts["cql"] != ports["cql"] || svcPorts["http"] != ports["http"] {
		t.Errorf("service ports %v, container ports %v", svcPorts, ports)
	}
	// docs/SECURITY.md: HTTP on all interfaces only with authentication,
	// and the users file mounted where the config says.
	if host, _, _ := net.SplitHostPort(cfg.HTTPAddr); host == "" || net.ParseIP(host).IsUnspecified() {
		if cfg.AuthUsersFile == "" && len(cfg.AuthUsers) == 0 {
			t.Errorf("http-addr %s listens on every interface without auth-users-file or auth-user", cfg.HTTPAddr)
		}
		if cfg.CaptureRoot == "" {
			t.Error("capture-root is not set: POST /admin/capture/start?dir= must be confined")
		}
	}
	if cfg.AuthUsersFile != "" {
		mounted := false
		for _, m := range c.VolumeMounts {
			if m.MountPath == filepath.Dir(cfg.AuthUsersFile) {
				mounted = true
			}
		}
		if !mounted {
			t.Errorf("auth-users-file %s is not on a mounted volume (%v)", cfg.AuthUsersFile, c.VolumeMounts)
		}
	}
	if cfg.MetricsAddr != "" && ports["metrics"] == 0 {
		t.Errorf("metrics-addr %s has no container port", cfg.MetricsAddr)
	}
	if grace := time.Duration(spec.TerminationGracePeriodSeconds) * time.Second; grace <= cfg.ShutdownGrace+5*time.Second {
		t.Errorf("terminationGracePeriodSeconds %v must exceed shutdown-grace %v plus the preStop pause", grace, cfg.ShutdownGrace)
	}
}

// TestGrafanaDashboard: the dashboard is valid JSON and every dohyo_ metric
// its queries use is one dohyo exports.
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	known := exportedMetricNames(t)
	name := regexp.MustCompile(`\bdohyo_[a-z_]+`)
	var titles []string
	for _, p := range dash.Panels {
		titles = append(titles, strings.ToLower(p.Title))
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				if !known[n] {
					t.Errorf("panel %q uses %s, which dohyo does not export", p.Title, n)
				}
			}
		}
	}
	all := strings.Join(titles, "|")
	for _, want := range []string{"request rate", "error rate", "latency", "in-flight", "connections", "capture"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s panel", want)
		}
	}
}

// exportedMetricNames lists the series names dohyo's registry exposes
// (histograms with their _bucket, _sum and _count series).
func exportedMetricNames(t *testing.T) map[string]bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, "test")
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveRequest("cql", "ks", "select", "b", "ok", time.Millisecond)
	m.Tap(metrics.TapConfig{}).Observe(&bindings.Observation{Source: bindings.SourceCQL, Err: true, ErrCode: bindings.CodeReadTimeout})
	if err := errors.Join(
		m.WatchPreparedCache(func() metrics.CacheStats { return metrics.CacheStats{} }),
		m.WatchCapture(func() metrics.CaptureStats { return metrics.CaptureStats{} }),
		m.WatchCQLServer(func() metrics.ServerStats { return metrics.ServerStats{} }),
	); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, mf := range mfs {
		n := mf.GetName()
		out[n] = true
		if mf.GetType().String() == "HISTOGRAM" {
			out[n+"_bucket"], out[n+"_sum"], out[n+"_count"] = true, true, true
		}
	}
	return out
}
