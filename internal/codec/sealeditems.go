package codec

import "github.com/openai/openai-go/v3/responses"

// ReasoningItems calls each with the id and encrypted content of each
// reasoning item ev carries whole: a Responses stream's
// output_item.done of one, the output of its final event, a whole
// response's output. The client keeps who made them, so that another
// deployment, which cannot open them, is not given them back (see
// wire.ReasoningItems). It reads only events whose Items is set.
func ReasoningItems(ev *Event, each func(id, sealed string)) {
	if !ev.Items {
		return
	}
	var res *responses.Response
	switch o := ev.Orig.(type) {
	case *responses.ResponseStreamEventUnion:
		if o.Type == respItemDone {
			each(o.Item.ID, o.Item.EncryptedContent)
			return
		}
		res = &o.Response
	case *responses.Response:
		res = o
	default:
		return
	}
	for _, it := range res.Output {
		if it.Type == "reasoning" {
			each(it.ID, it.EncryptedContent)
		}
	}
}

// holdsReasoning reports whether res's output holds a reasoning item.
func holdsReasoning(res *responses.Response) bool {
	for _, it := range res.Output {
		if it.Type == "reasoning" {
			return true
		}
	}
	return false
}
