package plan

import "github.com/tokenpace/tokenpace/simulate"

// Price is the list price of renting one GPU.
type Price struct {
	// GPU is the catalog GPU's name.
	GPU string
	// USDPerHour is the on-demand price of one GPU for one hour.
	USDPerHour float64
	// Source says where the figure comes from, and Date when it was
	// published.
	Source, Date string
}

// priceCatalog holds documented defaults: public on-demand list prices per
// GPU-hour. Prices move monthly and differ threefold between providers;
// pass your own (Prices.With, tokenpace plan --price GPU=USD) for a real
// decision. The Apple parts are not rented by the hour and have no
// default.
var priceCatalog = []Price{
	{"rtx-3090", 0.39, runpodSource, runpodDate},
	{"rtx-4090", 0.60, runpodSource, runpodDate},
	{"l4", 0.78, runpodSource, runpodDate},
	{"a10g", 1.086, "AWS G5 (1 × A10G) on-demand, us-east-1, as quoted by theneuralbase.com/ai-infrastructure/learn/intermediate/aws-p5-p4-g5-instances", "2026-04"},
	{"l40s", 1.40, runpodSource, runpodDate},
	{"a100-40gb", 4.10, "AWS p4d.24xlarge (8 × A100 40GB) on-demand $32.77/h ÷ 8, us-east-1, as quoted by xither.com/compare/gpu-compute-costs-on-prem-vs-cloud-vs-spot-instances", "2024-Q2"},
	{"a100-80gb", 2.45, runpodSource + " (A100 SXM 80GB)", runpodDate},
	{"h100-pcie", 3.51, runpodSource, runpodDate},
	{"h100-sxm", 4.76, runpodSource, runpodDate},
	{"h200", 6.35, runpodSource, runpodDate},
	{"b200", 10.57, runpodSource, runpodDate},
	{"mi300x", 1.99, "median MI300X on-demand rate over neoclouds and hyperscalers, cliffcenter.com/research/amd-inference-economics", "2026-05-18"},
}

const (
	runpodSource = "RunPod on-demand rate, as tabulated by deploybase.ai/articles/runpod-gpu-pricing"
	runpodDate   = "2026-03"
)

// Prices maps catalog GPU names to USD per GPU-hour.
type Prices map[string]float64

// DefaultPrices returns the documented list prices (see ListPrices) by GPU
// name. The caller may change the map it gets.
func DefaultPrices() Prices {
	p := make(Prices, len(priceCatalog))
	for _, c := range priceCatalog {
		p[c.GPU] = c.USDPerHour
	}
	return p
}

// ListPrices returns the documented default prices with their sources.
func ListPrices() []Price { return append([]Price(nil), priceCatalog...) }

// With returns a copy of p in which the GPU named gpu (a catalog name or
// alias) costs usd per hour. An unknown GPU yields a *simulate.UnknownNameError, a
// negative or non-finite price a *simulate.InvalidError.
func (p Prices) With(gpu string, usd float64) (Prices, error) {
	g, err := simulate.LookupGPU(gpu)
	if err != nil {
		return p, err
	}
	if !(usd >= 0) || usd > 1e6 {
		return p, &simulate.InvalidError{Field: "price of " + g.Name, Value: usd, Reason: "must be a number of USD per hour in [0, 1e6]"}
	}
	out := make(Prices, len(p)+1)
	for k, v := range p {
		out[k] = v
	}
	out[g.Name] = usd
	return out, nil
}
