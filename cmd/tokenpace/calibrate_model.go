package main

import (
	"fmt"
	"io"

	"github.com/tokenpace/tokenpace/simulate"
)

// runOrigin is what answered a bench run that calibrate reads: its
// report's file, served model and endpoint.
type runOrigin struct{ path, model, endpoint string }

// checkOneModel refuses runs that cannot be fitted as one deployment of
// d's model: runs that name two served models, or a model of the catalog
// (by name or alias) other than d's. A served name the catalog does not
// know (a fine-tune, a gateway's alias) is taken as the user says, as is
// a report that names no model. Runs of one model from more than one
// endpoint are fitted as one, with a note on stderr naming the two.
func checkOneModel(d simulate.Deployment, runs []runOrigin, stderr io.Writer) error {
	var first runOrigin
	for _, r := range runs {
		switch {
		case r.model == "":
		case first.model == "":
			first = r
		case r.model != first.model:
			return fmt.Errorf("--from %s measured model %q and --from %s model %q: one deployment is fitted to runs of one model; calibrate each apart",
				first.path, first.model, r.path, r.model)
		}
	}
	if m, err := simulate.LookupModel(first.model); err == nil {
		if want, err := simulate.LookupModel(d.Model.Name); err == nil && want.Name != m.Name {
			is := ""
			if m.Name != first.model {
				is = ", which is " + m.Name
			}
			return fmt.Errorf("--from %s measured model %q%s, not --model %s: name the model the runs measured", first.path, first.model, is, d.Model.Name)
		}
	}
	for _, r := range runs[1:] {
		if r.endpoint != runs[0].endpoint {
			fmt.Fprintf(stderr, "note: --from %s measured %s and --from %s %s: fitted as one deployment\n", runs[0].path, runs[0].endpoint, r.path, r.endpoint)
			break
		}
	}
	return nil
}
