package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/bcrypt"
	"gopkg.in/yaml.v3"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Configuration helpers: an example file, the effective settings, password hashes",
	}
	cmd.AddCommand(newConfigExampleCmd(), newConfigShowCmd(), newHashPasswordCmd())
	return cmd
}

func newConfigExampleCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "example",
		Short: "Print a commented YAML config file with every key at its default",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeConfigYAML(cmd.OutOrStdout(), DefaultConfig(), false)
		},
	}
}

func newConfigShowCmd() *cobra.Command {
	flagged := DefaultConfig()
	var configFile string
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Validate and print the effective serve configuration (file, environment, flags), secrets masked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd.Flags(), &flagged, configFile, os.Getenv)
			if err != nil {
				return err
			}
			return writeConfigYAML(cmd.OutOrStdout(), cfg, true)
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "YAML config file (env DOHYO_CONFIG)")
	registerFlags(cmd.Flags(), &flagged)
	return cmd
}

func newHashPasswordCmd() *cobra.Command {
	var cost int
	cmd := &cobra.Command{
		Use:   "hash-password",
		Short: "Read a password from standard input (first line) and print its bcrypt hash for auth-user",
		Example: `  printf '%s' "$PASSWORD" | dohyo config hash-password
  # then: --auth-user "app:$(printf '%s' "$PASSWORD" | dohyo config hash-password)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("read password: %w", err)
			}
			pass := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if pass == "" {
				return errors.New("empty password on standard input")
			}
			hash, err := bcrypt.GenerateFromPassword([]byte(pass), cost)
			if err != nil {
				return fmt.Errorf("hash password: %w", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), string(hash))
			return nil
		},
	}
	cmd.Flags().IntVar(&cost, "cost", bcrypt.DefaultCost, fmt.Sprintf("bcrypt cost, %d..%d (each step doubles the work)", bcrypt.MinCost, bcrypt.MaxCost))
	return cmd
}

// writeConfigYAML renders cfg as a YAML config file, one commented key per
// field of Config, so the example can never drift from the code. With
// redact, secrets that are set are printed as a comment instead.
func writeConfigYAML(w io.Writer, cfg Config, redact bool) error {
	var b strings.Builder
	b.WriteString("# dohyo serve configuration (dohyo serve --config FILE, or DOHYO_CONFIG=FILE).\n")
	b.WriteString("# Every key is also a flag (--KEY) and an environment variable (DOHYO_KEY,\n")
	b.WriteString("# upper case, - as _; lists comma-separated). Precedence: defaults < this\n")
	b.WriteString("# file < environment < flags. Durations: 300ms, 10s, 1h. Sizes in bytes.\n")
	for _, f := range configFields(&cfg) {
		b.WriteString("\n")
		for _, line := range wrapText(f.help, 76) {
			b.WriteString("# " + line + "\n")
		}
		fmt.Fprintf(&b, "# (flag --%s, env %s)\n", f.key, envName(f.key))
		if redact && f.secret && !f.v.IsZero() {
			fmt.Fprintf(&b, "# %s: <redacted>\n", f.key)
			continue
		}
		out, err := yaml.Marshal(map[string]any{f.key: f.v.Interface()})
		if err != nil {
			return fmt.Errorf("config %s: %w", f.key, err)
		}
		b.Write(out)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapText breaks s into lines of at most width characters at spaces.
func wrapText(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
