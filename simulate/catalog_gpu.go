package simulate

// gpuCatalog holds datasheet figures. Dense rates are the datasheets'
// sparse figures halved where only those are printed. GeForce fp16 rates are
// with fp32 accumulate, which inference kernels use.
var gpuCatalog = []catalogEntry[GPU]{
	{GPU{
		Name: "rtx-3090", BandwidthGBs: 936, FP16TFLOPS: 71, INT8TOPS: 284, MemoryGB: 24, HostLinkGBs: 32,
		Source: "NVIDIA Ampere GA102 GPU architecture whitepaper, table 9 (RTX 3090)",
	}, []string{"3090", "rtx3090", "geforce-rtx-3090"}},
	{GPU{
		Name: "rtx-4090", BandwidthGBs: 1008, FP16TFLOPS: 165.2, FP8TFLOPS: 330.3, INT8TOPS: 660.6, MemoryGB: 24, HostLinkGBs: 32,
		Source: "NVIDIA Ada Lovelace GPU architecture whitepaper, appendix A (RTX 4090)",
	}, []string{"4090", "rtx4090", "geforce-rtx-4090"}},
	{GPU{
		Name: "l4", BandwidthGBs: 300, FP16TFLOPS: 121, FP8TFLOPS: 242.5, INT8TOPS: 242.5, MemoryGB: 24, HostLinkGBs: 32,
		Source: "NVIDIA L4 Tensor Core GPU datasheet",
	}, []string{"nvidia-l4"}},
	{GPU{
		Name: "a10g", BandwidthGBs: 600, FP16TFLOPS: 70, INT8TOPS: 140, MemoryGB: 24, HostLinkGBs: 32,
		Source: "AWS G5 (A10G) figures as compared in baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference",
	}, []string{"a10", "nvidia-a10g"}},
	{GPU{
		Name: "l40s", BandwidthGBs: 864, FP16TFLOPS: 362.05, FP8TFLOPS: 733, INT8TOPS: 733, MemoryGB: 48, HostLinkGBs: 32,
		Source: "NVIDIA L40S datasheet",
	}, []string{"nvidia-l40s"}},
	{GPU{
		Name: "a100-40gb", BandwidthGBs: 1555, FP16TFLOPS: 312, INT8TOPS: 624, MemoryGB: 40, HostLinkGBs: 32,
		Source: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB)",
	}, []string{"a100-40", "a100-sxm4-40gb"}},
	{GPU{
		Name: "a100-80gb", BandwidthGBs: 2039, FP16TFLOPS: 312, INT8TOPS: 624, MemoryGB: 80, HostLinkGBs: 32,
		Source: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB)",
	}, []string{"a100", "a100-80", "a100-sxm4-80gb"}},
	{GPU{
		Name: "h100-pcie", BandwidthGBs: 2000, FP16TFLOPS: 756, FP8TFLOPS: 1513, INT8TOPS: 1513, MemoryGB: 80, HostLinkGBs: 64,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe)",
	}, []string{"h100pcie"}},
	{GPU{
		Name: "h100-sxm", BandwidthGBs: 3350, FP16TFLOPS: 989, FP8TFLOPS: 1979, INT8TOPS: 1979, MemoryGB: 80, HostLinkGBs: 64,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM)",
	}, []string{"h100", "h100-sxm5", "h100sxm"}},
	{GPU{
		Name: "h200", BandwidthGBs: 4800, FP16TFLOPS: 989, FP8TFLOPS: 1979, INT8TOPS: 1979, MemoryGB: 141, HostLinkGBs: 64,
		Source: "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM)",
	}, []string{"h200-sxm"}},
	{GPU{
		Name: "b200", BandwidthGBs: 8000, FP16TFLOPS: 2250, FP8TFLOPS: 4500, INT8TOPS: 4500, MemoryGB: 180, HostLinkGBs: 64,
		Source: "NVIDIA DGX B200 datasheet, per GPU (1440 GB, 64 TB/s, 72 PFLOPS fp8 sparse over 8 GPUs)",
	}, []string{"b200-sxm"}},
	{GPU{
		Name: "mi300x", BandwidthGBs: 5300, FP16TFLOPS: 1307.4, FP8TFLOPS: 2614.9, INT8TOPS: 2614.9, MemoryGB: 192, HostLinkGBs: 64,
		Source: "AMD Instinct MI300X datasheet",
	}, []string{"amd-mi300x", "mi300"}},
	{GPU{
		Name: "m2-ultra", BandwidthGBs: 800, FP16TFLOPS: 27.2, MemoryGB: 192, HostLinkGBs: 800,
		Source: "Apple M2 Ultra press release (800 GB/s, up to 192 GB); GPU rate 76 cores x 128 ALUs x 2 FLOP x 1.398 GHz; unified memory",
	}, []string{"apple-m2-ultra", "m2ultra"}},
	{GPU{
		Name: "m4-max", BandwidthGBs: 546, FP16TFLOPS: 18.4, MemoryGB: 128, HostLinkGBs: 546,
		Source: "Apple M4 Max press release (546 GB/s, up to 128 GB); GPU rate 40 cores x 128 ALUs x 2 FLOP x 1.8 GHz (estimate); unified memory",
	}, []string{"apple-m4-max", "m4max"}},
}
