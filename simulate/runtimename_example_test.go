package simulate_test

import (
	"fmt"

	"github.com/tokenpace/tokenpace/simulate"
)

// ParseRuntime takes the engine's own name; an unknown one is an error
// that lists every accepted name.
func ExampleParseRuntime() {
	for _, name := range []string{"SGLang", "trtllm", "ollama", "tgi"} {
		r, _ := simulate.ParseRuntime(name)
		fmt.Printf("%s: %v\n", name, r)
	}
	_, err := simulate.ParseRuntime("magic")
	fmt.Println(err != nil)
	// Output:
	// SGLang: vllm
	// trtllm: vllm
	// ollama: llama.cpp
	// tgi: eager
	// true
}
