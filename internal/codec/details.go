package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// maxDetailsBytes bounds the reasoning details Details accumulates of one
// answer: past it, it keeps none.
const maxDetailsBytes = 1 << 20

// Details accumulates the reasoning_details of a streamed chat answer's
// first choice as OpenRouter streams them: an array in each delta whose
// items are fragments of the message's items, one item per type and
// index, its text, summary and data in pieces and its other fields (id,
// format, signature) whole. JSON returns the message's array, what
// OpenRouter wants back on the next request. The zero value is ready to
// use.
type Details struct {
	items []*detail
	at    map[string]*detail // by type and index
	size  int
	over  bool
}

// detail is one item: its fields as sent, the pieced ones apart.
type detail struct {
	fields map[string]json.RawMessage
	pieces map[string]*strings.Builder
	order  []string // the pieced fields, as they first came
}

// pieced are the fields an item streams in pieces.
var pieced = [...]string{"text", "summary", "data"}

// Add adds the reasoning_details of ev's first choice, if any.
func (d *Details) Add(ev *Event) {
	c, ok := ev.Orig.(*openai.ChatCompletionChunk)
	if !ok || len(c.Choices) == 0 || d.over {
		return
	}
	f, ok := c.Choices[0].Delta.JSON.ExtraFields[reasoningDetails]
	if !ok {
		return
	}
	raw := f.Raw()
	if d.size += len(raw); d.size > maxDetailsBytes {
		d.over, d.items, d.at = true, nil, nil
		return
	}
	var frags []map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &frags) != nil {
		return
	}
	if d.at == nil {
		d.at = make(map[string]*detail)
	}
	for _, fr := range frags {
		key := string(fr["type"]) + "/" + string(fr["index"])
		it := d.at[key]
		if it == nil {
			it = &detail{fields: make(map[string]json.RawMessage), pieces: make(map[string]*strings.Builder)}
			d.at[key] = it
			d.items = append(d.items, it)
		}
		for k, v := range fr {
			if !isPieced(k) {
				it.fields[k] = v
				continue
			}
			var s string
			if json.Unmarshal(v, &s) != nil {
				it.fields[k] = v
				continue
			}
			b := it.pieces[k]
			if b == nil {
				b = new(strings.Builder)
				it.pieces[k] = b
				it.order = append(it.order, k)
			}
			b.WriteString(s)
		}
	}
}

func isPieced(k string) bool {
	for _, p := range pieced {
		if k == p {
			return true
		}
	}
	return false
}

// JSON returns the accumulated array, or "" when the answer had none or
// more than maxDetailsBytes.
func (d *Details) JSON() string {
	if d.over || len(d.items) == 0 {
		return ""
	}
	out := make([]map[string]json.RawMessage, len(d.items))
	for i, it := range d.items {
		m := make(map[string]json.RawMessage, len(it.fields)+len(it.order))
		for k, v := range it.fields {
			m[k] = v
		}
		for _, k := range it.order {
			s, _ := json.Marshal(it.pieces[k].String())
			m[k] = s
		}
		out[i] = m
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ""
	}
	return string(b)
}
