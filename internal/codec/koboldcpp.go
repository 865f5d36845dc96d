package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// KoboldCpp's placeholder usage.
//
// KoboldCpp's server (LostRuins/koboldcpp) answered every whole chat and
// completions request of its 2024 builds (1.76 among them) with the same
// usage, {"prompt_tokens": 100, "completion_tokens": 100,
// "total_tokens": 200}, whatever the prompt and the answer (koboldcpp.py
// wrote the numbers into the response), under the fixed ids
// "chatcmpl-A1" and "cmpl-A1". Taken as counts, they would make every
// figure built on tokens (TPOT, TPS, the prompt's size) up. Later builds
// count, under the same ids until LostRuins/koboldcpp#2015 (March 2026);
// a real count of exactly 100 and 100 from one of those is taken for the
// placeholder too, and the caller then has no usage rather than a wrong
// one.

// koboldCppIDs are the ids KoboldCpp gave every whole answer before
// LostRuins/koboldcpp#2015.
var koboldCppIDs = [...]string{"chatcmpl-A1", "cmpl-A1"}

// placeholderUsage reports whether u, the usage of the whole answer id,
// is KoboldCpp's placeholder: no count. Only whole answers are checked
// (see Fetch): KoboldCpp's streams carry no usage.
func placeholderUsage(id string, u *openai.CompletionUsage) bool {
	if u.PromptTokens != 100 || u.CompletionTokens != 100 || u.TotalTokens != 200 {
		return false
	}
	for _, k := range koboldCppIDs {
		if id == k {
			return true
		}
	}
	return false
}

// dropPlaceholder removes KoboldCpp's placeholder usage from the whole
// answer id, whose usage and its JSON metadata u and meta are, so that the
// caller's response holds none, as from a server that does not count.
func dropPlaceholder(id string, u *openai.CompletionUsage, meta *respjson.Field) {
	if placeholderUsage(id, u) {
		*u, *meta = openai.CompletionUsage{}, respjson.Field{}
	}
}
