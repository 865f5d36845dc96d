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
		if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "1, 2, 4, 8, 16, ") {
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

// A custom model's heads are assumed (hidden / head dimension): a GPU
// count that does not divide them is predicted, not refused, as the
// checkpoint's own may split (Gemma 2 9B's 16 heads over 4 GPUs, where
// 3584 / 256 gives 14), and the prediction says so; it was refused.
func TestPredictCustomModelAssumedHeadsWarned(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"predict", "--params-b", "9", "--gpus", "4"}, &stdout, &stderr); code != 0 {
		t.Fatalf("predict --params-b 9 --gpus 4 = exit %d, stderr %q; want a prediction", code, stderr.String())
	}
	const want = "heads = 14: hidden / head dimension (3584 / 256), which 4 GPUs do not divide; not refused"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("predict --params-b 9 --gpus 4 printed\n%s\nwant a line %q", stdout.String(), want)
	}
}
