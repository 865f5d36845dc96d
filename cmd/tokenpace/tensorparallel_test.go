package main

import (
	"bytes"
	"strings"
	"testing"
)

// predict refuses a GPU count the engines refuse to start with, naming the
// counts that work; it printed a prediction for it.
func TestPredictRefusesTensorParallelCount(t *testing.T) {
	for _, args := range [][]string{
		{"predict", "--model", "llama-3.1-70b", "--gpus", "3"},
		{"predict", "--gpus", "64"},
		{"predict", "--params-b", "70", "--gpus", "3"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "GPU counts that do: 1, 2, 4, 8, 16, 32") {
			t.Errorf("tokenpace %q = exit %d, stdout %q, stderr %q; want 2, no prediction, the counts that work", args, code, stdout.String(), stderr.String())
		}
	}
}

// Past the KV heads each is held on several GPUs: predict's KV room is
// what the GPUs hold (Llama 3.1 8B, 8 KV heads, on 16 H100s: 4.33M
// tokens, not 8.67M), and it says why.
func TestPredictKVRoomPastKVHeads(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"predict", "--gpus", "16"}, &stdout, &stderr); code != 0 {
		t.Fatalf("predict --gpus 16 = exit %d, stderr %q", code, stderr.String())
	}
	const want = "KV cache: 131 KB per token (262 KB held: each of its 8 KV heads on 2 GPUs), room for 4333267 tokens"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("predict --gpus 16 printed\n%s\nwant a line %q", stdout.String(), want)
	}
}
