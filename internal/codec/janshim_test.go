package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

func TestJanShimCut(t *testing.T) {
	const (
		id    = `"id":"resp_4b1e8f2a9c3d47e6a5b0c9d8e7f6a1b2"`
		rest  = `"model":"m","object":"response","output":[],"parallel_tool_calls":true,"status":"completed","tool_choice":"auto","tools":[]`
		usage = `"usage":{"input_tokens":13,"input_tokens_details":{"cached_tokens":0},"output_tokens":8,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":21}`
	)
	for _, tc := range []struct {
		name, res string
		want      bool
	}{
		{"cut", `{` + id + `,` + rest + `,"usage":null}`, true},
		{"whole", `{` + id + `,` + rest + `,` + usage + `}`, false},
		{"another server's, created_at set", `{` + id + `,"created_at":1788170400,` + rest + `,"usage":null}`, false},
		{"no usage member", `{` + id + `,` + rest + `}`, false},
		{"tools offered", `{` + id + `,"model":"m","object":"response","output":[],"status":"completed","tool_choice":"auto","tools":[{"type":"function","name":"f"}],"usage":null}`, false},
		{"another id", `{"id":"resp_8c4f",` + rest + `,"usage":null}`, false},
		{"failed", `{` + id + `,"model":"m","object":"response","output":[],"status":"failed","tool_choice":"auto","tools":[],"usage":null}`, false},
	} {
		var res responses.Response
		if err := json.Unmarshal([]byte(tc.res), &res); err != nil {
			t.Fatal(err)
		}
		if got := janShimCut(&res); got != tc.want {
			t.Errorf("janShimCut(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
