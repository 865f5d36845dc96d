package simulate

import "strconv"

// ComputeClass names the tensor-core rate a precision runs its matrix
// multiplications at.
type ComputeClass int

const (
	// ComputeFP16 is the dense fp16/bf16 rate. Weight-only quantisations
	// (int4, GGUF) dequantise to fp16 and run here.
	ComputeFP16 ComputeClass = iota
	// ComputeFP8 is the dense fp8 rate (GPU.FP8TFLOPS, or the fp16 rate on
	// hardware without fp8).
	ComputeFP8
	// ComputeINT8 is the dense int8 rate (GPU.INT8TOPS, or the fp16 rate on
	// hardware without it).
	ComputeINT8
)

// Precision is how a model's weights are stored: the bits each weight takes
// in memory (block scales included) and the rate its arithmetic runs at.
// The zero Precision is not valid; use a catalog value (FP16, BF16, FP8,
// INT8, INT4, Q4_0, Q4KM, Q8_0, ...), LookupPrecision, or CustomPrecision.
type Precision struct {
	// Name is the precision's short name, e.g. "bf16" or "q4_k_m".
	Name string
	// BitsPerWeight is the average number of bits one weight takes in
	// memory, scales and zero points included.
	BitsPerWeight float64
	// Compute is the tensor-core rate the matrix multiplications run at.
	Compute ComputeClass
	// GGUF is true for llama.cpp's block formats; a Deployment whose
	// Runtime is zero then takes llama.cpp's efficiency defaults.
	GGUF bool
}

// BytesPerWeight is BitsPerWeight / 8.
func (p Precision) BytesPerWeight() float64 { return p.BitsPerWeight / 8 }

// The precisions people deploy. Sources for the GGUF sizes: the block
// layouts in ggml (ggml-common.h): Q4_0 stores 32 4-bit weights with one
// fp16 scale (18 bytes per 32 weights = 4.5 bits); Q8_0 stores 32 8-bit
// weights with one fp16 scale (34 bytes per 32 = 8.5 bits); Q4_K is 4.5 bits
// per weight and Q6_K 6.5625, and Q4_K_M mixes Q4_K with Q6_K for the
// attention value and feed-forward down projections of half the layers,
// which llama.cpp's quantize tool reports as about 4.85 bits per weight for
// Llama-class models. Q5_K_M likewise reports about 5.69.
var (
	// FP16 is IEEE half precision: 2 bytes per weight.
	FP16 = Precision{Name: "fp16", BitsPerWeight: 16, Compute: ComputeFP16}
	// BF16 is bfloat16: 2 bytes per weight, fp16 tensor rate.
	BF16 = Precision{Name: "bf16", BitsPerWeight: 16, Compute: ComputeFP16}
	// FP8 is fp8 (E4M3) weights and activations with per-tensor scales:
	// 1 byte per weight, at the fp8 tensor rate.
	FP8 = Precision{Name: "fp8", BitsPerWeight: 8, Compute: ComputeFP8}
	// INT8 is int8 weights and activations (SmoothQuant-style W8A8) with
	// per-channel scales: 1 byte per weight, at the int8 tensor rate.
	INT8 = Precision{Name: "int8", BitsPerWeight: 8, Compute: ComputeINT8}
	// INT4 is 4-bit weight-only quantisation (AWQ/GPTQ) with group size 128:
	// 4 bits per weight plus one fp16 scale and one 4-bit zero point per
	// group of 128, 4.156 bits per weight. Arithmetic runs at fp16.
	INT4 = Precision{Name: "int4", BitsPerWeight: 4 + 16.0/128 + 4.0/128, Compute: ComputeFP16}
	// Q4_0 is GGUF Q4_0: 4.5 bits per weight.
	Q4_0 = Precision{Name: "q4_0", BitsPerWeight: 4.5, Compute: ComputeFP16, GGUF: true}
	// Q4KM is GGUF Q4_K_M: about 4.85 bits per weight.
	Q4KM = Precision{Name: "q4_k_m", BitsPerWeight: 4.85, Compute: ComputeFP16, GGUF: true}
	// Q5KM is GGUF Q5_K_M: about 5.69 bits per weight.
	Q5KM = Precision{Name: "q5_k_m", BitsPerWeight: 5.69, Compute: ComputeFP16, GGUF: true}
	// Q6K is GGUF Q6_K: 6.5625 bits per weight.
	Q6K = Precision{Name: "q6_k", BitsPerWeight: 6.5625, Compute: ComputeFP16, GGUF: true}
	// Q8_0 is GGUF Q8_0: 8.5 bits per weight.
	Q8_0 = Precision{Name: "q8_0", BitsPerWeight: 8.5, Compute: ComputeFP16, GGUF: true}
)

var precisionCatalog = []catalogEntry[Precision]{
	{FP16, []string{"float16", "half"}},
	{BF16, []string{"bfloat16"}},
	{FP8, []string{"float8", "e4m3", "w8a8-fp8"}},
	{INT8, []string{"w8a8", "w8a8-int8"}},
	{INT4, []string{"awq", "gptq", "w4a16", "4bit"}},
	{Q4_0, nil},
	{Q4KM, []string{"q4_k", "q4km"}},
	{Q5KM, []string{"q5_k", "q5km"}},
	{Q6K, nil},
	{Q8_0, nil},
}

// Precisions returns the catalog of precisions.
func Precisions() []Precision { return values(precisionCatalog) }

// LookupPrecision finds a precision by name or alias, ignoring case and
// punctuation ("BF16", "q4_k_m", "Q4-K-M", "awq"). An unknown name yields a
// *UnknownNameError listing the known names.
func LookupPrecision(name string) (Precision, error) {
	return lookup("precision", precisionCatalog, name, func(p Precision) string { return p.Name })
}

// CustomPrecision is a weight-only precision of the given bits per weight,
// running its arithmetic at fp16. It is what a bare "--bits" asks for.
func CustomPrecision(bits float64) (Precision, error) {
	if !(bits > 0 && bits <= 32) {
		return Precision{}, &InvalidError{Field: "bits per weight", Value: bits, Reason: "must be in (0, 32]"}
	}
	return Precision{Name: strconv.FormatFloat(bits, 'g', -1, 64) + "-bit", BitsPerWeight: bits, Compute: ComputeFP16}, nil
}
