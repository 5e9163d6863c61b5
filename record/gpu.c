/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - GPU utilization and memory samples through NVIDIA's NVML, loaded
 * with dlopen at run time: no build dependency, and a machine without the
 * library (or without GPUs) simply has no GPU samples, and no error.
 * Only the stable NVML entry points below are used (nvml.h, CUDA >= 5).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "rec.h"

typedef struct nvml_device *nvml_device;
struct nvml_util { unsigned int gpu, memory; };
struct nvml_mem { unsigned long long total, free, used; };

struct rec_gpu {
	void *lib;
	unsigned n;
	nvml_device dev[64];
	int (*util)(nvml_device, struct nvml_util *);
	int (*mem)(nvml_device, struct nvml_mem *);
	int (*shutdown)(void);
};

struct rec_gpu *rec_gpu_open(void)
{
	struct rec_gpu *g = calloc(1, sizeof(*g));
	int (*init)(void);
	int (*count)(unsigned *);
	int (*handle)(unsigned, nvml_device *);

	if (!g)
		return NULL;
	g->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!g->lib)
		goto fail;
	init = (int (*)(void))dlsym(g->lib, "nvmlInit_v2");
	count = (int (*)(unsigned *))dlsym(g->lib, "nvmlDeviceGetCount_v2");
	handle = (int (*)(unsigned, nvml_device *))dlsym(g->lib, "nvmlDeviceGetHandleByIndex_v2");
	g->util = (int (*)(nvml_device, struct nvml_util *))dlsym(g->lib, "nvmlDeviceGetUtilizationRates");
	g->mem = (int (*)(nvml_device, struct nvml_mem *))dlsym(g->lib, "nvmlDeviceGetMemoryInfo");
	g->shutdown = (int (*)(void))dlsym(g->lib, "nvmlShutdown");
	if (!init || !count || !handle || !g->util || !g->mem || !g->shutdown)
		goto fail;
	if (init() != 0)	/* NVML_SUCCESS */
		goto fail;
	if (count(&g->n) != 0 || g->n == 0) {
		g->shutdown();
		goto fail;
	}
	if (g->n > 64)
		g->n = 64;
	for (unsigned i = 0; i < g->n; i++)
		if (handle(i, &g->dev[i]) != 0)
			g->dev[i] = NULL;
	return g;
fail:
	if (g->lib)
		dlclose(g->lib);
	free(g);
	return NULL;
}

void rec_gpu_sample(struct rec_gpu *g, struct rec_state *st, uint64_t ts)
{
	for (unsigned i = 0; g && i < g->n; i++) {
		struct nvml_util u;
		struct nvml_mem m;
		struct tape_sample s = { .ts_ns = ts, .subject = i };

		if (!g->dev[i])
			continue;
		if (g->util(g->dev[i], &u) == 0) {
			s.metric = TAPE_METRIC_GPU_UTIL_PCT;
			s.value = u.gpu;
			rec_append(st, TAPE_TABLE_SAMPLE, &s);
		}
		if (g->mem(g->dev[i], &m) == 0) {
			s.metric = TAPE_METRIC_GPU_MEM_BYTES;
			s.value = m.used;
			rec_append(st, TAPE_TABLE_SAMPLE, &s);
		}
	}
}

void rec_gpu_free(struct rec_gpu *g)
{
	if (!g)
		return;
	g->shutdown();
	dlclose(g->lib);
	free(g);
}
