package tokenpace_test

import (
	"testing"
)

// TestLMDeployChoicesFannedOut: LMDeploy streams a request for n > 1
// choices by running one single-choice generation per choice and
// draining their chunks together (InternLM/lmdeploy#4841, August 2026;
// lmdeploy/serve/openai/chat_completions/fanout.py, _collate_streams):
// what is ready at once goes out in shared chunks, the Nth ready delta of
// each choice in the Nth chunk, so that a chunk may hold one choice's
// entry alone and one read two chunks (the last text of choice 1 and its
// finish). Every chunk is the child's, re-indexed, under one id; each
// child's usage is kept back and one usage chunk sent after the last
// finish, the prompt counted once and the output summed. A child that
// fails (its error event has no choice, which the fan-out refuses with a
// RuntimeError) ends the body without a word once the stream has begun:
// uvicorn leaves the chunked body unterminated. Through a Client and a
// Router, both choices come whole with their finish reasons and the
// summed usage; a fan-out cut short is KindTruncated, its text kept.
func TestLMDeployChoicesFannedOut(t *testing.T) {
	for _, tc := range []twoChoices{
		{"lmdeploy-2026-chat-n2-stream.jsonl", "Hi! How are", "Hello there!", "length", "stop", 7, false},
		{"lmdeploy-2026-chat-n2-child-error.jsonl", "Hi! How", "Hello there", "", "", 0, true},
	} {
		t.Run(tc.fixture, func(t *testing.T) { wantTwoChoices(t, "Qwen3-8B", 4, tc) })
	}
}
