package simulate_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// NodeModulesEnv names the environment variable that points the Node SDK
// test at a node_modules directory with the official openai package
// installed (.ci/run installs a pinned version); without it the test is
// skipped.
const nodeModulesEnv = "TOKENPACE_NODE_MODULES"

// Scripts run by node against the simulator at BASE_URL; each prints one
// JSON object of what the official SDK made of the stream.
const (
	nodeResponsesText = `
const OpenAI = require("openai");
(async () => {
  const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: "sk-test", maxRetries: 0 });
  const stream = client.responses.stream({ model: "m", input: "Say hi.", max_output_tokens: 20 });
  let deltas = "";
  const types = new Set();
  for await (const ev of stream) {
    types.add(ev.type);
    if (ev.type === "response.output_text.delta") deltas += ev.delta;
  }
  const res = await stream.finalResponse();
  console.log(JSON.stringify({ deltas, output_text: res.output_text, status: res.status,
    output_tokens: res.usage.output_tokens, completed: types.has("response.completed") }));
})().catch((e) => { console.error(e); process.exit(1); });
`
	nodeResponsesCall = `
const OpenAI = require("openai");
(async () => {
  const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: "sk-test", maxRetries: 0 });
  const stream = client.responses.stream({ model: "m", input: "Weather in Paris?",
    tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }] });
  let args = "", argDeltas = 0, done = "";
  for await (const ev of stream) {
    if (ev.type === "response.function_call_arguments.delta") { args += ev.delta; argDeltas++; }
    if (ev.type === "response.function_call_arguments.done") done = ev.arguments;
  }
  const res = await stream.finalResponse();
  const call = res.output.find((o) => o.type === "function_call");
  console.log(JSON.stringify({ args, arg_deltas: argDeltas, done, name: call.name, arguments: call.arguments, status: res.status }));
})().catch((e) => { console.error(e); process.exit(1); });
`
	nodeCompletionsFIM = `
const OpenAI = require("openai");
(async () => {
  const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: "sk-test", maxRetries: 0 });
  const stream = await client.completions.create({ model: "m", prompt: "func f() int {\n\t", suffix: "\n\treturn x\n}",
    max_tokens: 20, stream: true, stream_options: { include_usage: true } });
  let text = "", finish = "", tokens = 0;
  for await (const chunk of stream) {
    for (const c of chunk.choices) { text += c.text; if (c.finish_reason) finish = c.finish_reason; }
    if (chunk.usage) tokens = chunk.usage.completion_tokens;
  }
  console.log(JSON.stringify({ text, finish, tokens }));
})().catch((e) => { console.error(e); process.exit(1); });
`
)

// The official Node SDK reads the simulator's streams: responses.stream
// with text and with a function call, and completions.create with
// stream: true and a suffix (fill-in-the-middle).
func TestNodeSDK(t *testing.T) {
	modules := os.Getenv(nodeModulesEnv)
	if modules == "" {
		t.Skipf("%s is not set: no node_modules with the openai package", nodeModulesEnv)
	}
	if _, err := os.Stat(filepath.Join(modules, "openai", "package.json")); err != nil {
		t.Fatalf("%s=%s holds no openai package: %v", nodeModulesEnv, modules, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s is set but node is not found: %v", nodeModulesEnv, err)
	}
	ts := simulate.StartLoopback(t,
		simulate.WithModel("m", &simulate.Fixed{TTFT: 5 * time.Millisecond, ITL: time.Millisecond}),
		simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
			if ri.Suffix != "" {
				return "x := compute()", true
			}
			return "Hi there, from the simulator.", true
		}),
		simulate.WithToolCalls(func(ri simulate.ReplyInfo) []simulate.ToolCall {
			if len(ri.Tools) == 0 {
				return nil
			}
			return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
		}),
	)
	tests := []struct {
		name   string
		script string
		want   map[string]any
	}{
		{"responses.stream text", nodeResponsesText, map[string]any{
			"deltas": "Hi there, from the simulator.", "output_text": "Hi there, from the simulator.",
			"status": "completed", "output_tokens": 5.0, "completed": true}},
		{"responses.stream function call", nodeResponsesCall, map[string]any{
			"args": `{"city":"Paris"}`, "arg_deltas": 4.0, "done": `{"city":"Paris"}`,
			"name": "get_weather", "arguments": `{"city":"Paris"}`, "status": "completed"}},
		{"completions.create stream with suffix", nodeCompletionsFIM, map[string]any{
			"text": "x := compute()", "finish": "stop", "tokens": 3.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "-e", tt.script)
			cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "BASE_URL="+ts.URL)
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("node: %v\n%s", err, stderr)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("node printed %q: %v", out, err)
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s = %v, want %v (all: %s)", k, got[k], want, out)
				}
			}
		})
	}
}
