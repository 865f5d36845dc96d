package codec

import "strings"

// A text streamed whole so far.
//
// Alibaba Cloud Model Studio (DashScope) streams the translations of
// Qwen-MT's qwen-mt-plus and qwen-mt-turbo only "non-incrementally": each
// chunk holds the whole translation generated so far, and the last one
// the complete result; only qwen-mt-flash and qwen-mt-lite stream what
// each chunk adds (help.aliyun.com/zh/model-studio/machine-translation,
// 流式输出: "qwen-mt-plus与qwen-mt-turbo仅支持非增量流式输出，每次返回当前
// 已经生成的整个序列，最后返回的数据为生成的完整结果"). Its OpenAI-compatible
// mode puts that text in delta.content, which openai-go's accumulator, and
// every caller that prints the deltas, appends: the answer becomes its
// beginning over and over ("II didn'tI didn't laugh…"). Clients of the
// platform met the same shape on other of its paths and cut each chunk to
// what it adds (QwenLM/qwen-code#3896, normalizeStreamingTextDelta;
// CherryHQ/cherry-studio#833 of a Qwen web chat's bridge); no source
// showed those paths' models, so only the two named above are read so.

// wholeSoFarModels are the models whose streams send their text whole so
// far, as their names appear in a chunk's model (a relay may put its own
// prefix before them).
var wholeSoFarModels = []string{"qwen-mt-plus", "qwen-mt-turbo"}

// wholeSoFar reads the first choice's content of a stream of such a model
// as the piece each chunk adds. Only the first chunk's model is looked
// at: a stream of another model pays one test a chunk. The zero value has
// looked at no chunk.
type wholeSoFar struct {
	looked bool   // a chunk with a model was looked at
	on     bool   // its model streams its text whole so far
	shown  bool   // a chunk held the text so far, not empty, and more
	text   string // the first choice's text so far, as the server last sent it
}

// wholeChanged is the Detail of the error of a chunk that changes text
// a stream sent whole so far had given already (see wholeSoFar.cut).
const wholeChanged = "text sent whole so far changed"

// cut makes the content of ev's chunk the piece it adds to the text so
// far: a content that holds the text so far and more gives the rest; the
// text so far again (the last chunk's complete result) or less of it gives
// nothing, and the event counts one output-bearing delta less. A content
// that does not begin with the text so far, before any chunk held the
// text so far and more, is left as it came, and the stream is read as
// deltas from then on: its server did not send the text whole after all.
// After one did, such a content changes text the caller was given
// already, which no piece added can say: the error returned ends the
// stream there, cut, the text so far kept (a Router carries it on).
// Read as deltas, every later chunk would add the whole text again.
func (w *wholeSoFar) cut(ev *Event) error {
	c := ev.Chunk
	if !w.looked {
		if c.Model == "" {
			return nil
		}
		w.looked, w.on = true, wholeSoFarModel(c.Model)
	}
	if !w.on || len(c.Choices) != 1 || c.Choices[0].Index != 0 || c.Choices[0].Delta.Content == "" {
		return nil
	}
	d := &c.Choices[0].Delta
	switch s := d.Content; {
	case strings.HasPrefix(s, w.text):
		w.shown = w.shown || w.text != "" && len(s) > len(w.text)
		d.Content, w.text = s[len(w.text):], s
	case strings.HasPrefix(w.text, s):
		d.Content = ""
	case w.shown:
		return &Error{Truncated: true, Detail: wholeChanged}
	default:
		w.on = false
		return nil
	}
	if d.Content == "" && !outputBearing(d) && ev.Outputs > 0 {
		ev.Outputs--
	}
	return nil
}

// wholeSoFarModel reports whether model, a chunk's, is one of
// wholeSoFarModels.
func wholeSoFarModel(model string) bool {
	for _, m := range wholeSoFarModels {
		if strings.Contains(model, m) {
			return true
		}
	}
	return false
}
