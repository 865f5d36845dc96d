package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// llama-server's answers relayed by Jan's cortex.cpp, which drops their
// finish reason.
//
// cortex.cpp (janhq/cortex.cpp, 1.0.12 to 1.0.14, March to June 2025)
// runs llama-server and relays its chat stream through a curl write
// callback (engine/extensions/local-engine/local_engine.cc,
// WriteCallback) that takes each read for one event: it drops every read
// holding "completion_tokens" unless the caller asked for the usage, which
// on its OpenAI path it never records as asked (OaiInfo's include_usage is
// fixed false), and it writes a read holding [DONE] as "data: [DONE]"
// alone, with no line break. The llama-server builds it shipped
// (menloresearch/llama.cpp's releases, b4932 in its tests) put the finish
// reason on the same last chunk as the usage and timings
// (to_json_oaicompat_chat_stream), so that chunk never arrives: every
// answer ends without a finish reason. Read as any other stream, every
// whole answer was a cut one (KindTruncated "no finish_reason"), and a
// Router carried on an answer that was whole.
//
// A cut answer does not end so: when llama-server's body breaks, curl
// fails and the relay writes its error as bare JSON with no [DONE]
// (server.cc, ProcessStreamRes); when llama-server sends an error event,
// the relay writes it as data (see llamaCppError) before the [DONE]. Only
// an error event read together with the [DONE] is lost, its read sent as
// "data: [DONE]" alone: no byte then tells that answer from a whole one.

// llamaServerChunk reports whether c is in llama-server's shape: its id
// "chatcmpl-…", its fingerprint none or llama-server's build.
func llamaServerChunk(c *openai.ChatCompletionChunk) bool {
	//lint:ignore SA1019 llama-server still sends it: its build tells its chunks
	fp := c.SystemFingerprint
	return strings.HasPrefix(c.ID, "chatcmpl-") && (fp == "" || llamaServerBuild(fp))
}

// llamaBuild reports whether c, a chunk in llama-server's shape, carries
// its build as its fingerprint: some chunk of a stream cortex.cpp relays
// does.
func llamaBuild(c *openai.ChatCompletionChunk) bool {
	//lint:ignore SA1019 llama-server still sends it: its build tells its chunks
	return c.SystemFingerprint != ""
}

// llamaServerBuild reports whether fp is llama-server's build_info, which
// it sends as a chunk's system_fingerprint: "b", the build number, "-"
// and the commit's short hash ("b4932-1a2b3c4d").
func llamaServerBuild(fp string) bool {
	number, commit, ok := strings.Cut(fp, "-")
	return ok && len(number) > 1 && number[0] == 'b' && strings.Trim(number[1:], "0123456789") == "" &&
		len(commit) >= 7 && strings.Trim(commit, "0123456789abcdef") == ""
}
