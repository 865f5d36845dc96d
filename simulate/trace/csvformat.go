package trace

import (
	"errors"
	"io"
	"strings"

	"github.com/tokenpace/tokenpace/simulate"
)

// readCSV reads tokenpace's own trace CSV through simulate.ReadTrace.
func (t *Trace) readCSV(r io.Reader) error {
	arr, err := simulate.ReadTrace(r)
	var ie *simulate.InvalidError
	if errors.As(err, &ie) {
		// "trace line N" → file:N.
		if rest, ok := strings.CutPrefix(ie.Field, "trace line "); ok {
			line := 0
			for _, c := range rest {
				line = line*10 + int(c-'0')
			}
			return &LineError{Name: t.Name, Line: line, Err: errors.New(ie.Reason + ": want arrival_s,prompt_tokens,output_tokens[,prefix_id]")}
		}
		return &LineError{Name: t.Name, Line: 0, Err: err}
	}
	if err != nil {
		return err
	}
	for _, a := range arr {
		r := Request{At: a.At, PromptTokens: a.Request.PromptTokens, OutputTokens: a.Request.OutputTokens, Prefix: a.Request.PrefixKey}
		t.Requests = append(t.Requests, r)
	}
	return nil
}
