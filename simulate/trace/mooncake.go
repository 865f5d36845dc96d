package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// mooncakeLine is one line of a Mooncake trace.
type mooncakeLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int     `json:"input_length"`
	OutputLength *int     `json:"output_length"`
	HashIDs      []uint64 `json:"hash_ids"`
}

// readMooncake reads a Mooncake JSON-lines trace.
func (t *Trace) readMooncake(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		req, err := parseMooncake(b, t.BlockTokens)
		if err != nil {
			return &LineError{Name: t.Name, Line: n, Err: err}
		}
		t.Requests = append(t.Requests, req)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", t.Name, err)
	}
	return nil
}

// parseMooncake parses one line.
func parseMooncake(b []byte, block int) (Request, error) {
	const want = `want an object such as {"timestamp": 0, "input_length": 655, "output_length": 52, "hash_ids": [46, 47]}`
	var l mooncakeLine
	if err := json.Unmarshal(b, &l); err != nil {
		return Request{}, fmt.Errorf("%v: %s", err, want)
	}
	switch {
	case l.Timestamp == nil || l.InputLength == nil || l.OutputLength == nil:
		return Request{}, fmt.Errorf("missing timestamp, input_length or output_length: %s", want)
	case !(*l.Timestamp >= 0 && *l.Timestamp <= 1e13):
		return Request{}, fmt.Errorf("timestamp %v: want milliseconds since the trace's start, in [0, 1e13]", *l.Timestamp)
	case *l.InputLength < 1 || *l.InputLength > maxTokens || *l.OutputLength < 0 || *l.OutputLength > maxTokens:
		return Request{}, fmt.Errorf("input_length %d, output_length %d: want token counts in [1, %d] and [0, %[3]d]", *l.InputLength, *l.OutputLength, maxTokens)
	case (len(l.HashIDs)-1)*block >= *l.InputLength:
		return Request{}, fmt.Errorf("%d hash_ids of %d tokens for an input_length of %d: want at most one block per %[2]d prompt tokens", len(l.HashIDs), block, *l.InputLength)
	}
	return Request{
		At:           time.Duration(math.Round(*l.Timestamp * 1e6)),
		PromptTokens: *l.InputLength, OutputTokens: max(*l.OutputLength, 1), Blocks: l.HashIDs,
	}, nil
}
