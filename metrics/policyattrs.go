package metrics

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/tokenpace/tokenpace"
)

// Attribute keys of the Router's routing policies on spans.
const (
	// attrAffinity: the call (or the attempt) went first to the route that
	// had answered its session last (tokenpace.Affinity).
	attrAffinity = attribute.Key("tokenpace.affinity")
	// attrAdmission: the policy that held back or skipped an attempt
	// beyond its breaker and client-side limit (tokenpace.Attempt.Admission:
	// "server_limit", "ramp"); on the call span, that of the first such
	// attempt.
	attrAdmission = attribute.Key("tokenpace.admission")
	// attrProbation: how long an attempt's output was held back on
	// probation before the caller received it, in seconds
	// (tokenpace.Attempt.Committed − FirstToken); on the call span, that
	// of the attempt the caller read.
	attrProbation = attribute.Key("tokenpace.probation")
)

// policyAttrs returns the attributes of the call span that say which
// routing policies acted on the call t.
func policyAttrs(t *tokenpace.Timing) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if len(t.Attempts) > 0 && t.Attempts[0].Affinity {
		attrs = append(attrs, attrAffinity.Bool(true))
	}
	for _, a := range t.Attempts {
		if a.Admission != "" {
			attrs = append(attrs, attrAdmission.String(a.Admission))
			break
		}
	}
	for _, a := range t.Attempts {
		if !a.Committed.IsZero() {
			attrs = append(attrs, attrProbation.Float64(a.Committed.Sub(a.FirstToken).Seconds()))
			break
		}
	}
	return attrs
}

// attemptPolicyAttrs returns the attributes of attempt a's span that say
// which routing policies acted on it.
func attemptPolicyAttrs(a tokenpace.Attempt) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if a.Affinity {
		attrs = append(attrs, attrAffinity.Bool(true))
	}
	if a.Admission != "" {
		attrs = append(attrs, attrAdmission.String(a.Admission))
	}
	if !a.Committed.IsZero() {
		attrs = append(attrs, attrProbation.Float64(a.Committed.Sub(a.FirstToken).Seconds()))
	}
	return attrs
}
