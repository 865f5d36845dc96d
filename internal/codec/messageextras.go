package codec

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// messageExtras gathers, per choice index, what openai-go's accumulator
// drops of a streamed message and a whole one holds: its reasoning, in
// the field the server streamed it in (reasoningFields), the images an
// image model generated (imagesField), and the annotations a web search
// model cites its sources with (annotationsField). The zero value is
// ready to use.
type messageExtras map[int64]*extraParts

// extraParts is one choice's reasoning, per field, images, each an
// image_url part's JSON, and annotations, each an annotation's JSON.
type extraParts struct {
	reasoning   [len(reasoningFields)]strings.Builder
	images      []string
	annotations []string
}

// add gathers the reasoning, images and annotations of c's deltas.
func (m *messageExtras) add(c *openai.ChatCompletionChunk) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		extra := ch.Delta.JSON.ExtraFields
		if len(extra) == 0 {
			continue
		}
		for k, name := range reasoningFields {
			if f, ok := extra[name]; ok {
				if s := stringOf(json.RawMessage(f.Raw())); s != "" {
					m.of(ch.Index).reasoning[k].WriteString(s)
				}
			}
		}
		if f, ok := extra[imagesField]; ok {
			gjson.Parse(f.Raw()).ForEach(func(_, image gjson.Result) bool {
				if image.IsObject() {
					p := m.of(ch.Index)
					p.images = append(p.images, image.Raw)
				}
				return true
			})
		}
		if f, ok := extra[annotationsField]; ok {
			gjson.Parse(f.Raw()).ForEach(func(_, a gjson.Result) bool {
				if a.IsObject() {
					p := m.of(ch.Index)
					p.annotations = append(p.annotations, nestedCitation(a))
				}
				return true
			})
		}
	}
}

// annotationsField is the field of a delta in which OpenAI's web search
// models (gpt-4o-search-preview) stream the url_citation annotations of
// their answer, in a chunk of their own without content after the text
// (openai/openai-java#297, openai/openai-agents-js#1617), which the
// published chunk schema lacks: a whole response's message holds them
// in its annotations.
const annotationsField = "annotations"

// nestedCitation returns a, an annotation's JSON, with its citation in
// a url_citation object, where OpenAI puts it and openai-go reads it.
// Xiaomi's MiMo API sends the sources of its web_search tool in its
// first chunk as annotations of type url_citation whose url and title
// stand at the annotation's top level, beside site_name and summary
// (lobehub/lobehub packages/model-runtime/src/core/streams/openai/openai.ts,
// transformOpenAIStream, its recorded chunk): read as they are, each
// cites no URL. Such an annotation gets a url_citation object of its url
// and title, its own members kept; any other is returned as it is.
func nestedCitation(a gjson.Result) string {
	if a.Get("url_citation").Exists() || a.Get("type").String() != "url_citation" {
		return a.Raw
	}
	url := a.Get("url")
	if url.Type != gjson.String {
		return a.Raw
	}
	cite := map[string]string{"url": url.String(), "title": a.Get("title").String()}
	out, err := sjson.Set(a.Raw, "url_citation", cite)
	if err != nil {
		return a.Raw
	}
	return out
}

// of returns the parts of choice i, new ones the first time.
func (m *messageExtras) of(i int64) *extraParts {
	if *m == nil {
		*m = messageExtras{}
	}
	p := (*m)[i]
	if p == nil {
		p = new(extraParts)
		(*m)[i] = p
	}
	return p
}

// setOn sets, on each message of c whose choice streamed some, its
// reasoning and images as fields of the message's JSON.ExtraFields, and
// its annotations in its Annotations, as a whole response's message holds
// them.
func (m messageExtras) setOn(c *openai.ChatCompletion) {
	for i := range c.Choices {
		p := m[c.Choices[i].Index]
		if p == nil {
			continue
		}
		msg := &c.Choices[i].Message
		extra := maps.Clone(msg.JSON.ExtraFields)
		if extra == nil {
			extra = map[string]respjson.Field{}
		}
		for k, name := range reasoningFields {
			if p.reasoning[k].Len() > 0 {
				raw, _ := json.Marshal(p.reasoning[k].String())
				extra[name] = respjson.NewField(string(raw))
			}
		}
		if len(p.images) > 0 {
			extra[imagesField] = respjson.NewField("[" + strings.Join(p.images, ",") + "]")
		}
		if len(p.annotations) > 0 {
			_ = json.Unmarshal([]byte("["+strings.Join(p.annotations, ",")+"]"), &msg.Annotations)
		}
		msg.JSON.ExtraFields = extra
	}
}

// reasoningOf returns the reasoning of msg, in the first of
// reasoningFields that holds some.
func reasoningOf(msg *openai.ChatCompletionMessage) string {
	for _, name := range reasoningFields {
		if s := stringOf(json.RawMessage(msg.JSON.ExtraFields[name].Raw())); s != "" {
			return s
		}
	}
	return ""
}
