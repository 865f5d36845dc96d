package codec

import (
	"errors"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestResponseStream checks what a Responses stream's done events add to
// what its items streamed: the rest of a text that extends it, a tool call
// that never streamed, and nothing else; and which deltas are the model's
// output: those of every tool call, of audio, not a hosted tool's own.
func TestResponseStream(t *testing.T) {
	const (
		delta    = `{"type":"response.output_text.delta","item_id":"m","delta":%q}`
		textDone = `{"type":"response.output_text.done","item_id":"m","text":%q}`
		added    = `{"type":"response.output_item.added","item":{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":""}}`
		args     = `{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{}"}`
		callDone = `{"type":"response.output_item.done","item":{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}}`
		argsDone = `{"type":"response.function_call_arguments.done","item_id":"fc","arguments":"{}"}`
		// The shell tool's call, as openai-go v3 types its events.
		shellAdded = `{"type":"response.output_item.added","output_index":1,"item":{"type":"shell_call","id":"sh","call_id":"c","status":"in_progress"}}`
		shellDelta = `{"type":"response.shell_call_command.delta","output_index":1,"command_index":0,"delta":"ls"}`
		shellDone  = `{"type":"response.output_item.done","output_index":1,"item":{"type":"shell_call","id":"sh","call_id":"c","status":"completed","action":{"commands":["ls"]}}}`
	)
	type want struct {
		content  string
		outputs  int
		toolCall bool
	}
	for _, tc := range []struct {
		name   string
		events []string
		last   want // of the last event
	}{
		{"the done text extends the deltas", []string{fmt.Sprintf(delta, "Hel"), fmt.Sprintf(textDone, "Hello.")}, want{"lo.", 1, false}},
		{"the done text extends several deltas", []string{fmt.Sprintf(delta, "He"), fmt.Sprintf(delta, "l"), fmt.Sprintf(textDone, "Hello.")}, want{"lo.", 1, false}},
		{"the done text extends other text", []string{fmt.Sprintf(delta, "Hex"), fmt.Sprintf(textDone, "Hello.")}, want{}},
		{"the done text names another item id, the same text", []string{fmt.Sprintf(delta, "Hello."), `{"type":"response.output_text.done","item_id":"m2","text":"Hello."}`}, want{}},
		{"the done text names another item id and extends the text", []string{fmt.Sprintf(delta, "Hel"), `{"type":"response.output_text.done","item_id":"m2","text":"Hello."}`}, want{"lo.", 1, false}},
		{"the done text names another item id, other text", []string{fmt.Sprintf(delta, "Hello."), `{"type":"response.output_text.done","item_id":"m2","text":"Bye."}`}, want{}},
		{"deltas without an item id, the done event with one", []string{`{"type":"response.output_text.delta","delta":"Hello."}`, `{"type":"response.output_text.done","item_id":"m","text":"Hello."}`}, want{}},
		{"a second part only in its done event: kept out, as a renamed part would be", []string{fmt.Sprintf(delta, "A."), fmt.Sprintf(textDone, "A."), `{"type":"response.output_text.done","item_id":"m","content_index":1,"text":"B."}`}, want{}},
		{"a second part's tail in its done event", []string{fmt.Sprintf(delta, "A."), `{"type":"response.output_text.delta","item_id":"m","content_index":1,"delta":"B"}`, `{"type":"response.output_text.done","item_id":"m","content_index":1,"text":"B."}`}, want{".", 1, false}},
		{"item ids change from delta to delta", []string{`{"type":"response.output_text.delta","item_id":"m1","delta":"Hel"}`, `{"type":"response.output_text.delta","item_id":"m2","delta":"lo"}`, `{"type":"response.output_text.done","item_id":"m3","text":"Hello."}`}, want{".", 1, false}},
		{"the done text's rest then streamed as a delta", []string{fmt.Sprintf(delta, "Hel"), fmt.Sprintf(textDone, "Hello."), `{"type":"response.output_text.delta","item_id":"","delta":"lo."}`}, want{}},
		{"the done text's rest then streamed in two deltas", []string{fmt.Sprintf(delta, "Hel"), fmt.Sprintf(textDone, "Hello."), fmt.Sprintf(delta, "lo"), fmt.Sprintf(delta, ".")}, want{}},
		{"new text after the done text's rest", []string{fmt.Sprintf(delta, "Hel"), fmt.Sprintf(textDone, "Hello."), fmt.Sprintf(delta, "lo."), fmt.Sprintf(delta, " Bye.")}, want{" Bye.", 1, false}},
		{"other text after the done text", []string{fmt.Sprintf(delta, "Hel"), fmt.Sprintf(textDone, "Hello."), fmt.Sprintf(delta, "Bye.")}, want{"Bye.", 1, false}},
		{"the done text is the deltas'", []string{fmt.Sprintf(delta, "Hello."), fmt.Sprintf(textDone, "Hello.")}, want{}},
		{"the done text differs", []string{fmt.Sprintf(delta, "Hello."), fmt.Sprintf(textDone, "Goodbye.")}, want{}},
		{"a text only in its done event", []string{fmt.Sprintf(textDone, "Hi.")}, want{"Hi.", 1, false}},
		{"a second done event adds nothing", []string{fmt.Sprintf(textDone, "Hi."), fmt.Sprintf(textDone, "Hi.")}, want{}},
		{"a call only in its done event", []string{callDone}, want{"", 1, true}},
		{"a call streamed by arguments (call id apart)", []string{args, `{"type":"response.output_item.done","item":{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":"{}"}}`}, want{}},
		{"a call added, its arguments only in its done event", []string{added, callDone}, want{"", 1, true}},
		{"a call added, its arguments only in function_call_arguments.done", []string{added, argsDone}, want{"", 1, true}},
		{"a call's arguments done after they streamed", []string{added, args, argsDone}, want{}},
		{"a call's item done after its arguments were done", []string{added, argsDone, `{"type":"response.output_item.done","item":{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":"{}"}}`}, want{}},
		{"a message's done event", []string{`{"type":"response.output_item.done","item":{"type":"message","id":"m","content":[{"type":"output_text","text":"x"}]}}`}, want{}},
		{"a custom tool's input delta", []string{`{"type":"response.custom_tool_call_input.delta","item_id":"ct","delta":"ls"}`}, want{"", 1, true}},
		{"a custom tool's call done after its input streamed", []string{`{"type":"response.custom_tool_call_input.delta","item_id":"ct","delta":"ls"}`, `{"type":"response.output_item.done","item":{"type":"custom_tool_call","id":"ct","call_id":"c","name":"sh","input":"ls"}}`}, want{}},
		{"an MCP call's arguments delta", []string{`{"type":"response.mcp_call_arguments.delta","item_id":"mc","delta":"{"}`}, want{"", 1, true}},
		{"the code interpreter's code delta", []string{`{"type":"response.code_interpreter_call_code.delta","item_id":"ci","delta":"print(1)"}`}, want{"", 1, true}},
		{"a shell command delta", []string{`{"type":"response.shell_call_command.delta","item_id":"sc","delta":"ls"}`}, want{"", 1, true}},
		// openai-go v3's ResponseShellCallCommandDeltaEvent names no item:
		// its output_index and command_index only.
		{"a shell call done after its command streamed", []string{shellAdded, shellDelta, shellDone}, want{}},
		{"a shell call done after its command done", []string{shellAdded, shellDelta, `{"type":"response.shell_call_command.done","output_index":1,"command_index":0,"command":"ls"}`, shellDone}, want{}},
		{"a shell command only in its done event", []string{shellAdded, `{"type":"response.shell_call_command.done","output_index":1,"command_index":0,"command":"ls"}`}, want{"", 1, true}},
		{"a shell call at another output index than its command's", []string{shellDelta, `{"type":"response.output_item.done","output_index":2,"item":{"type":"shell_call","id":"sh2","call_id":"c2","status":"completed"}}`}, want{"", 1, true}},
		{"a custom tool's input only in its done event", []string{`{"type":"response.custom_tool_call_input.done","item_id":"ct","input":"ls"}`}, want{"", 1, true}},
		{"a custom tool's call done after its input done", []string{`{"type":"response.custom_tool_call_input.done","item_id":"ct","input":"ls"}`, `{"type":"response.output_item.done","item":{"type":"custom_tool_call","id":"ct","call_id":"c","name":"sh","input":"ls"}}`}, want{}},
		{"a custom tool's input done after it streamed", []string{`{"type":"response.custom_tool_call_input.delta","item_id":"ct","delta":"ls"}`, `{"type":"response.custom_tool_call_input.done","item_id":"ct","input":"ls"}`}, want{}},
		{"an MCP call's arguments only in their done event", []string{`{"type":"response.mcp_call_arguments.done","item_id":"mc","arguments":"{}"}`}, want{"", 1, true}},
		{"the code interpreter's code only in its done event", []string{`{"type":"response.code_interpreter_call_code.done","item_id":"ci","code":"print(1)"}`}, want{"", 1, true}},
		{"the code interpreter's code done after it streamed", []string{`{"type":"response.code_interpreter_call_code.delta","item_id":"ci","delta":"print(1)"}`, `{"type":"response.code_interpreter_call_code.done","item_id":"ci","code":"print(1)"}`}, want{}},
		{"a computer call, whole in its items", []string{`{"type":"response.output_item.added","item":{"type":"computer_call","id":"cu","call_id":"c","action":{"type":"screenshot"}}}`, `{"type":"response.output_item.done","item":{"type":"computer_call","id":"cu","call_id":"c","action":{"type":"screenshot"}}}`}, want{"", 1, true}},
		{"a computer call's item added", []string{`{"type":"response.output_item.added","item":{"type":"computer_call","id":"cu","call_id":"c"}}`}, want{"", 0, true}},
		{"an audio delta", []string{`{"type":"response.audio.delta","delta":"AAAA"}`}, want{"", 1, false}},
		{"a shell command's output is the tool's, not the model's", []string{`{"type":"response.shell_call_output_content.delta","item_id":"sc","delta":"a.txt"}`}, want{}},
		{"a partial image", []string{`{"type":"response.image_generation_call.partial_image","item_id":"ig","partial_image_b64":"AAAA"}`}, want{"", 1, true}},
		{"an image done after its partial image", []string{`{"type":"response.image_generation_call.partial_image","item_id":"ig","partial_image_b64":"AAAA"}`, `{"type":"response.output_item.done","item":{"type":"image_generation_call","id":"ig","result":"AAAA"}}`}, want{}},
		{"an image whole in its done item", []string{`{"type":"response.output_item.done","item":{"type":"image_generation_call","id":"ig","result":"AAAA"}}`}, want{"", 1, true}},
		{"an MCP approval request, whole in its items", []string{`{"type":"response.output_item.added","item":{"type":"mcp_approval_request","id":"mr","name":"ask","server_label":"wiki","arguments":"{}"}}`, `{"type":"response.output_item.done","item":{"type":"mcp_approval_request","id":"mr","name":"ask","server_label":"wiki","arguments":"{}"}}`}, want{"", 1, true}},
		{"a client tool search, whole in its items", []string{`{"type":"response.output_item.added","item":{"type":"tool_search_call","id":"ts","call_id":"c","execution":"client","status":"in_progress","arguments":{}}}`, `{"type":"response.output_item.done","item":{"type":"tool_search_call","id":"ts","call_id":"c","execution":"client","status":"completed","arguments":{"query":"weather"}}}`}, want{"", 1, true}},
		{"a tool search the server ran", []string{`{"type":"response.output_item.done","item":{"type":"tool_search_call","id":"ts","call_id":"c","execution":"server","status":"completed","arguments":{"query":"weather"}}}`}, want{}},
		{"an MCP server's tools listed", []string{`{"type":"response.output_item.done","item":{"type":"mcp_list_tools","id":"ml","server_label":"wiki","tools":[]}}`}, want{}},
		{"a web search's done item", []string{`{"type":"response.output_item.done","item":{"type":"web_search_call","id":"ws","status":"completed"}}`}, want{}},
		{"a web search's progress", []string{`{"type":"response.web_search_call.searching","item_id":"ws"}`}, want{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := decodeResponseEvents(t, tc.events)
			got := want{ev.Chunk.Choices[0].Delta.Content, ev.Outputs, ev.ToolCall}
			if got != tc.last {
				t.Errorf("last event: %+v, want %+v", got, tc.last)
			}
		})
	}
}

// TestResponseStreamBound: past maxStreamedItems items, a done event adds
// nothing, so that a server cannot grow the decoder's memory without bound.
func TestResponseStreamBound(t *testing.T) {
	dec := DecoderFor(Response(responses.ResponseNewParams{}))
	for i := range maxStreamedItems + 10 {
		ev, err := dec.Decode(fmt.Appendf(nil, `{"type":"response.output_text.done","item_id":"m%d","text":"x"}`, i))
		if err != nil {
			t.Fatal(err)
		}
		if want := i < maxStreamedItems; (ev.Outputs == 1) != want {
			t.Fatalf("item %d: outputs %d, want output %v", i, ev.Outputs, want)
		}
	}
	if n := len(dec.(*ResponseStream).items); n != maxStreamedItems {
		t.Errorf("%d items kept, want %d", n, maxStreamedItems)
	}
}

// TestResponseObjectDelta: a delta sent as an object, as the API reference
// of mid 2025 gave reasoning deltas, is its text, for the caller's event
// too, and the old names of the reasoning deltas are output.
func TestResponseObjectDelta(t *testing.T) {
	for _, tc := range []struct {
		event, delta, content string
		outputs               int
	}{
		{`{"type":"response.reasoning.delta","item_id":"r","delta":{"content":"We"}}`, "We", "", 1},
		{`{"type":"response.reasoning.delta","item_id":"r","delta":"We"}`, "We", "", 1},
		{`{"type":"response.reasoning_summary.delta","item_id":"r","delta":{"text":"Plan"}}`, "Plan", "", 1},
		{`{"type":"response.reasoning.delta","item_id":"r","delta":{}}`, "", "", 0},
		{`{"type":"response.reasoning.delta","item_id":"r","delta":{"content":7}}`, "", "", 0},
		{`{"type":"response.output_text.delta","item_id":"m","delta":{"type":"output_text","text":"Hi"}}`, "Hi", "Hi", 1},
		{`{"type":"response.output_text.delta","item_id":"m","delta":"{\"text\":\"x\"}"}`, `{"text":"x"}`, `{"text":"x"}`, 1},
		// The one delta openai-go v3 types as an object
		// (ResponseShellCallOutputContentDeltaEvent): the caller's event
		// keeps it as bare openai-go gives it, the object's JSON, and it
		// is the tool's output, not the model's.
		{`{"type":"response.shell_call_output_content.delta","output_index":0,"command_index":0,"delta":{"stdout":"a.txt\n","stderr":""}}`, `{"stdout":"a.txt\n","stderr":""}`, "", 0},
		{`{"type":"response.shell_call_output_content.delta","output_index":0,"command_index":0,"delta":{"text":"x"}}`, `{"text":"x"}`, "", 0},
	} {
		ev, err := DecoderFor(Response(responses.ResponseNewParams{})).Decode([]byte(tc.event))
		if err != nil {
			t.Fatal(err)
		}
		orig := ev.Orig.(*responses.ResponseStreamEventUnion)
		if orig.Delta != tc.delta || ev.Chunk.Choices[0].Delta.Content != tc.content || ev.Outputs != tc.outputs {
			t.Errorf("%s: delta %q, content %q, %d outputs; want %q, %q, %d", tc.event, orig.Delta, ev.Chunk.Choices[0].Delta.Content, ev.Outputs, tc.delta, tc.content, tc.outputs)
		}
	}
}

// TestChatChunkInResponses: a chat chunk where a Responses event belongs,
// gpt4free's answer to /v1/responses, is refused as such; an event of no
// type that is no chat chunk is read as before.
func TestChatChunkInResponses(t *testing.T) {
	for _, tc := range []struct {
		event string
		want  string // the error's Detail, "" for none
	}{
		{`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}`, "chat chunk in a Responses stream"},
		{`{"id":"chatcmpl-1","object":"chat.completion","choices":[]}`, ""},
		{`{"sequence_number":3}`, ""},
	} {
		_, err := DecoderFor(Response(responses.ResponseNewParams{})).Decode([]byte(tc.event))
		var got string
		if ce := (*Error)(nil); errors.As(err, &ce) {
			got = ce.Detail
		} else if err != nil {
			t.Fatalf("%s: %v, want a *codec.Error or none", tc.event, err)
		}
		if got != tc.want {
			t.Errorf("Decode(%s) detail = %q, want %q", tc.event, got, tc.want)
		}
	}
}

// TestFinishOf checks the finish reason a Responses answer's status and
// incomplete_details give.
func TestFinishOf(t *testing.T) {
	for _, tt := range []struct {
		status     responses.ResponseStatus
		incomplete string
		want       string
	}{
		{responses.ResponseStatusCompleted, "", "stop"},
		{"", "", "stop"},
		{responses.ResponseStatusIncomplete, "", "max_output_tokens"},
		{responses.ResponseStatusIncomplete, "max_output_tokens", "max_output_tokens"},
		{responses.ResponseStatusIncomplete, "content_filter", "content_filter"},
		{responses.ResponseStatusCompleted, "max_tokens", "max_output_tokens"}, // Docker Model Runner
		{responses.ResponseStatusCompleted, "content_filter", "content_filter"},
		{responses.ResponseStatusCancelled, "", "cancelled"},
		// openai-go v3.105's other incomplete reasons
		// (ResponseIncompleteDetails): finished answers, not failures.
		{responses.ResponseStatusIncomplete, "max_messages", "max_messages"},
		{responses.ResponseStatusIncomplete, "steered", "steered"},
	} {
		got := finishOf(tt.status, tt.incomplete)
		if got != tt.want {
			t.Errorf("finishOf(%q, %q) = %q, want %q", tt.status, tt.incomplete, got, tt.want)
		}
		if FailedFinish(got) != (got == "cancelled") {
			t.Errorf("FailedFinish(%q) = %v, want %v", got, FailedFinish(got), got == "cancelled")
		}
	}
}

// TestResponseRefusalDone: a refusal whole in its done event
// (openai-go v3 ResponseRefusalDoneEvent), no delta before it, is the
// answer's output and the chat view's refusal, once: not again from the
// final response, nor from a done event after deltas that streamed it.
func TestResponseRefusalDone(t *testing.T) {
	const (
		refDelta = `{"type":"response.refusal.delta","item_id":"m","delta":"I can't help with that."}`
		refDone  = `{"type":"response.refusal.done","item_id":"m","refusal":"I can't help with that."}`
		final    = `{"type":"response.completed","response":{"id":"r","status":"completed","output":[{"type":"message","id":"m","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}]}]}}`
	)
	type got struct {
		refusal string
		outputs int
	}
	for _, tc := range []struct {
		name   string
		events []string
		want   []got // one per event
	}{
		{"only in its done event", []string{refDone, final}, []got{{"I can't help with that.", 1}, {}}},
		{"streamed, then done", []string{refDelta, refDone, final}, []got{{"I can't help with that.", 1}, {}, {}}},
		{"an empty done event, then the final response", []string{`{"type":"response.refusal.done","item_id":"m","refusal":""}`, final}, []got{{}, {"I can't help with that.", 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec := DecoderFor(Response(responses.ResponseNewParams{}))
			for i, e := range tc.events {
				ev, err := dec.Decode([]byte(e))
				if err != nil {
					t.Fatal(err)
				}
				g := got{ev.Chunk.Choices[0].Delta.Refusal, ev.Outputs}
				if g != tc.want[i] || ev.Refusal != (g.refusal != "") {
					t.Errorf("event %d: %+v (Refusal %v), want %+v", i, g, ev.Refusal, tc.want[i])
				}
			}
		})
	}
}

// decodeResponseEvents decodes events, in order, with one Responses
// decoder and returns the last event it gave.
func decodeResponseEvents(t *testing.T, events []string) Event {
	t.Helper()
	dec := DecoderFor(Response(responses.ResponseNewParams{}))
	var ev Event
	for _, e := range events {
		var err error
		if ev, err = dec.Decode([]byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	return ev
}
