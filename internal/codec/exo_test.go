package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

func TestExoFailed(t *testing.T) {
	const (
		msg   = `{"type":"message","id":"item_8c4f","role":"assistant","content":[{"type":"output_text","text":"Latency","annotations":[]}],"status":"completed"}`
		call  = `{"type":"function_call","id":"fc_5b1e","call_id":"call_5b1e","name":"get_weather","arguments":"{}","status":"completed"}`
		usage = `,"usage":{"input_tokens":27,"input_tokens_details":{"cached_tokens":0},"output_tokens":8,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":35}`
	)
	for _, tc := range []struct {
		name, res string
		want      bool
	}{
		{"cut", `{"id":"resp_8c4f","status":"completed","output":[` + msg + `]}`, true},
		{"whole", `{"id":"resp_8c4f","status":"completed","output":[` + msg + `]` + usage + `}`, false},
		{"call", `{"id":"resp_8c4f","status":"completed","output":[` + msg + `,` + call + `]}`, false},
		{"another server's ids", `{"id":"resp_8c4f","status":"completed","output":[{"type":"message","id":"msg_8c4f","content":[]}]}`, false},
		{"another answer's item", `{"id":"resp_1234","status":"completed","output":[` + msg + `]}`, false},
		{"incomplete", `{"id":"resp_8c4f","status":"incomplete","output":[` + msg + `]}`, false},
	} {
		var res responses.Response
		if err := json.Unmarshal([]byte(tc.res), &res); err != nil {
			t.Fatal(err)
		}
		if got := exoFailed(&res); got != tc.want {
			t.Errorf("exoFailed(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
