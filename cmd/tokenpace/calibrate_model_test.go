package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// withModel writes a copy of the bench report src with its model and
// endpoint replaced, as a run of another server would have them.
func withModel(t *testing.T, src, dst, model, endpoint string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r["model"], r["endpoint"] = model, endpoint
	if b, err = json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A bench report names the model that answered it. calibrate fitted one
// deployment to whatever runs it was given: runs of two models together
// (the misfit then blamed on "the endpoint"), or runs of Llama 3.1 8B as
// Llama 3.1 70B, and wrote the deployment file with exit 0. Runs of a
// catalog model other than --model, or of two models, are refused now,
// each named; a served name the catalog does not know is taken as the
// user says, and runs of one model from two endpoints are fitted with a
// note.
func TestCalibrateRunsOfAnotherModel(t *testing.T) {
	dir := t.TempDir()
	run1, run2 := filepath.Join(dir, "run1.json"), filepath.Join(dir, "run2.json")
	synctest.Test(t, func(t *testing.T) {
		benchToFile(t, run1, "256", "1", "3")
		benchToFile(t, run2, "2048", "16", "16")
	})
	path := func(name, model, endpoint string) string {
		p := filepath.Join(dir, name)
		withModel(t, run2, p, model, endpoint)
		return p
	}
	seventy := path("seventy.json", "meta-llama/Llama-3.1-70B-Instruct", "http://gpu2:8000/v1")
	vllm1 := filepath.Join(dir, "vllm1.json")
	withModel(t, run1, vllm1, "meta-llama/Llama-3.1-8B-Instruct", "http://gpu1:8000/v1")
	vllm2 := path("vllm2.json", "meta-llama/Llama-3.1-8B-Instruct", "http://gpu1:8000/v1")
	tuned1 := filepath.Join(dir, "tuned1.json")
	withModel(t, run1, tuned1, "acme-support-v3", "http://gpu1:8000/v1")
	tuned2 := path("tuned2.json", "acme-support-v3", "http://gpu1:8000/v1")
	other := path("other.json", "meta-llama/Llama-3.1-8B-Instruct", "http://gpu7:8000/v1")
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"runs of two models", []string{"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", run1, "--from", seventy},
			1, []string{"seventy.json", "meta-llama/Llama-3.1-70B-Instruct", "run1.json", "llama-3.1-8b"}},
		{"runs of a model other than --model", []string{"--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--gpus", "4", "--from", run1, "--from", run2},
			1, []string{"run1.json", "llama-3.1-8b", "--model llama-3.1-70b"}},
		{"a served name of the catalog's model", []string{"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", vllm1, "--from", vllm2}, 0, nil},
		{"a served name the catalog does not know", []string{"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", tuned1, "--from", tuned2}, 0, nil},
		{"one model from two endpoints", []string{"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", vllm1, "--from", other},
			0, []string{"http://gpu1:8000/v1", "http://gpu7:8000/v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "d.json")
			code, stdout, stderr := calibrate(t, append(tc.args, "--out", out)...)
			if code != tc.code {
				t.Fatalf("calibrate exit %d, want %d; stdout %q, stderr %q", code, tc.code, stdout, stderr)
			}
			for _, s := range tc.contains {
				if !strings.Contains(stderr, s) {
					t.Errorf("calibrate stderr %q lacks %q", stderr, s)
				}
			}
			if _, err := os.Stat(out); (err == nil) != (tc.code == 0) {
				t.Errorf("calibrate exit %d: deployment file written = %v", code, err == nil)
			}
		})
	}
}
