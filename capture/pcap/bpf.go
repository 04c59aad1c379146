package pcap

// A classic BPF program that keeps TCP segments to or from given ports,
// for a socket that sees packets from their IP header on (AF_PACKET
// SOCK_DGRAM): the kernel then copies only the connections of interest.

// BPF opcodes (linux/filter.h).
const (
	bpfLdB    = 0x30 // BPF_LD|BPF_B|BPF_ABS
	bpfLdH    = 0x28 // BPF_LD|BPF_H|BPF_ABS
	bpfLdHInd = 0x48 // BPF_LD|BPF_H|BPF_IND
	bpfLdxMsh = 0xb1 // BPF_LDX|BPF_B|BPF_MSH
	bpfAnd    = 0x54 // BPF_ALU|BPF_AND|BPF_K
	bpfJeq    = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
	bpfJset   = 0x45 // BPF_JMP|BPF_JSET|BPF_K
	bpfRet    = 0x06 // BPF_RET|BPF_K
)

// Instruction is one classic BPF instruction.
type Instruction struct {
	Code   uint16
	Jt, Jf uint8
	K      uint32
}

// asm builds a program with symbolic jump targets.
type asm struct {
	ins    []Instruction
	jt, jf []string
	labels map[string]int
}

func (a *asm) op(code uint16, k uint32) { a.jump(code, k, "", "") }

func (a *asm) jump(code uint16, k uint32, jt, jf string) {
	a.ins = append(a.ins, Instruction{Code: code, K: k})
	a.jt, a.jf = append(a.jt, jt), append(a.jf, jf)
}

func (a *asm) label(name string) { a.labels[name] = len(a.ins) }

func (a *asm) link() []Instruction {
	for i := range a.ins {
		if a.jt[i] != "" {
			a.ins[i].Jt = uint8(a.labels[a.jt[i]] - i - 1)
		}
		if a.jf[i] != "" {
			a.ins[i].Jf = uint8(a.labels[a.jf[i]] - i - 1)
		}
	}
	return a.ins
}

// PortFilter returns a program accepting IPv4 and IPv6 TCP segments
// whose source or destination port is one of ports (at most 50), up to
// snaplen bytes, for packets that start at the IP header.
func PortFilter(ports []uint16, snaplen uint32) []Instruction {
	ports = ports[:min(len(ports), 50)]
	a := &asm{labels: map[string]int{}}
	a.op(bpfLdB, 0)
	a.op(bpfAnd, 0xf0)
	a.jump(bpfJeq, 0x40, "v4", "")
	a.jump(bpfJeq, 0x60, "v6", "drop")
	a.label("v4")
	a.op(bpfLdB, 9)
	a.jump(bpfJeq, 6, "", "drop")
	a.op(bpfLdH, 6)
	a.jump(bpfJset, 0x1fff, "drop", "")
	a.op(bpfLdxMsh, 0)
	a.op(bpfLdHInd, 0)
	for _, p := range ports {
		a.jump(bpfJeq, uint32(p), "accept", "")
	}
	a.op(bpfLdHInd, 2)
	for _, p := range ports {
		a.jump(bpfJeq, uint32(p), "accept", "")
	}
	a.op(bpfRet, 0)
	a.label("v6")
	a.op(bpfLdB, 6)
	a.jump(bpfJeq, 6, "", "drop")
	a.op(bpfLdH, 40)
	for _, p := range ports {
		a.jump(bpfJeq, uint32(p), "accept", "")
	}
	a.op(bpfLdH, 42)
	for _, p := range ports {
		a.jump(bpfJeq, uint32(p), "accept", "")
	}
	a.label("drop")
	a.op(bpfRet, 0)
	a.label("accept")
	a.op(bpfRet, snaplen)
	return a.link()
}
