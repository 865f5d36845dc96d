package trace

import (
	"bytes"
	"fmt"
	"strings"
)

// Format is a trace's file format.
type Format int

const (
	// Auto detects the format from the first line.
	Auto Format = iota
	// Azure is the Azure LLM inference trace CSV.
	Azure
	// BurstGPT is the BurstGPT CSV.
	BurstGPT
	// Mooncake is the Mooncake JSON-lines trace with hash_ids.
	Mooncake
	// CSV is tokenpace's own arrival_s,prompt_tokens,output_tokens[,prefix_id].
	CSV
)

var formatNames = []string{Auto: "auto", Azure: "azure", BurstGPT: "burstgpt", Mooncake: "mooncake", CSV: "csv"}

// String returns the format's name, as ParseFormat reads it.
func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// ParseFormat reads a format name: auto, azure, burstgpt, mooncake or csv.
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if strings.EqualFold(s, n) {
			return Format(i), nil
		}
	}
	return Auto, fmt.Errorf("trace: unknown format %q: want one of %s", s, strings.Join(formatNames, ", "))
}

// detect names the format whose first line is line.
func detect(line []byte) Format {
	line = bytes.TrimLeft(line, "\ufeff \t")
	switch {
	case len(line) > 0 && line[0] == '{':
		return Mooncake
	case bytes.HasPrefix(line, []byte("TIMESTAMP,")):
		return Azure
	case bytes.HasPrefix(line, []byte("Timestamp,")):
		return BurstGPT
	}
	return CSV
}
