// The ggml side of benches/compare: one ggml graph of one op, computed on the CPU
// backend the way a program linking ggml runs it (ggml_graph_plan once, then
// ggml_graph_compute on n threads). Loaded by peer_worker.py through ctypes.
//
// Ops: "matmul" (x @ w.T with w quantized to `type`, activations f32 — ggml
// quantizes them to the type's dot-product partner inside the op, as tsr does) and
// "dequantize" (w quantized, cast to f32) are graphs; "quantize" is
// ggml_quantize_chunk over row ranges, one thread each, as llama-quantize runs it.
// Weights are quantized without an importance matrix, ggml's reference rounding.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml.h"
#include "ggml-cpu.h"

#define MAX_THREADS 64

static struct {
    struct ggml_context *ctx;
    // "quantize": the f32 source, the quantized output and the threads to use.
    struct ggml_tensor *src;
    int threads;
    struct ggml_cgraph *graph;
    struct ggml_cplan plan;
    void *work;
    struct ggml_tensor *out;
} peer;

static void release(void) {
    if (peer.ctx) ggml_free(peer.ctx);
    free(peer.work);
    memset(&peer, 0, sizeof peer);
}

static int type_named(const char *name, enum ggml_type *type) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const char *known = ggml_type_name((enum ggml_type)t);
        if (known && strcmp(known, name) == 0) {
            *type = (enum ggml_type)t;
            return 0;
        }
    }
    return -1;
}

// Builds the graph for one case; returns 0, or -1 with a message on stderr.
int gp_prepare(const char *op, const char *type_name, const float *w, int64_t rows, int64_t cols,
               const float *x, int64_t x_rows, int threads) {
    release();
    ggml_cpu_init();
    enum ggml_type type;
    if (type_named(type_name, &type) != 0) {
        fprintf(stderr, "ggml_peer: unknown type %s\n", type_name);
        return -1;
    }
    size_t bytes = 8 * ggml_tensor_overhead() + ggml_graph_overhead() + (1 << 20);
    bytes += ggml_row_size(type, cols) * rows + ggml_row_size(GGML_TYPE_F32, cols) * rows;
    bytes += ggml_row_size(GGML_TYPE_F32, cols) * x_rows + ggml_row_size(GGML_TYPE_F32, rows) * x_rows;
    struct ggml_init_params params = {bytes, NULL, false};
    peer.ctx = ggml_init(params);
    if (!peer.ctx) return -1;

    struct ggml_tensor *src;
    if (strcmp(op, "quantize") == 0) {
        peer.src = ggml_new_tensor_2d(peer.ctx, GGML_TYPE_F32, cols, rows);
        memcpy(peer.src->data, w, ggml_nbytes(peer.src));
        peer.out = ggml_new_tensor_2d(peer.ctx, type, cols, rows);
        peer.threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
        return 0;
    } else {
        src = ggml_new_tensor_2d(peer.ctx, type, cols, rows);
        ggml_quantize_chunk(type, w, src->data, 0, rows, cols, NULL);
        if (strcmp(op, "dequantize") == 0) {
            peer.out = ggml_cast(peer.ctx, src, GGML_TYPE_F32);
        } else if (strcmp(op, "matmul") == 0) {
            struct ggml_tensor *act = ggml_new_tensor_2d(peer.ctx, GGML_TYPE_F32, cols, x_rows);
            memcpy(act->data, x, ggml_nbytes(act));
            peer.out = ggml_mul_mat(peer.ctx, src, act);
        } else {
            fprintf(stderr, "ggml_peer: unknown op %s\n", op);
            release();
            return -1;
        }
    }
    peer.graph = ggml_new_graph(peer.ctx);
    ggml_build_forward_expand(peer.graph, peer.out);
    peer.plan = ggml_graph_plan(peer.graph, threads, NULL);
    if (peer.plan.work_size > 0) {
        peer.work = malloc(peer.plan.work_size);
        peer.plan.work_data = peer.work;
    }
    return 0;
}

struct rows { int64_t first, count; };

static void *quantize_rows(void *arg) {
    const struct rows *r = arg;
    int64_t cols = peer.src->ne[0];
    ggml_quantize_chunk(peer.out->type, (const float *)peer.src->data, peer.out->data, r->first * cols,
                        r->count, cols, NULL);
    return NULL;
}

static void quantize_once(void) {
    pthread_t handles[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    struct rows parts[MAX_THREADS];
    int64_t rows = peer.src->ne[1];
    for (int t = 0; t < peer.threads; t++) {
        parts[t].first = rows * t / peer.threads;
        parts[t].count = rows * (t + 1) / peer.threads - parts[t].first;
        if (t > 0) started[t] = pthread_create(&handles[t], NULL, quantize_rows, &parts[t]) == 0;
    }
    quantize_rows(&parts[0]);
    for (int t = 1; t < peer.threads; t++) {
        if (started[t]) pthread_join(handles[t], NULL);
        else quantize_rows(&parts[t]);  // no thread to be had: this one does the part
    }
}

// Runs the op n times; returns 0 when every run succeeded.
int gp_run(int n) {
    for (int i = 0; i < n; i++) {
        if (peer.src) {
            quantize_once();
            continue;
        }
        if (ggml_graph_compute(peer.graph, &peer.plan) != GGML_STATUS_SUCCESS) return -1;
    }
    return 0;
}

// The output's element count as f32 (a quantized output is dequantized for the check).
int64_t gp_result_len(void) { return ggml_nelements(peer.out); }

void gp_result(float *dst) {
    int64_t n = ggml_nelements(peer.out);
    if (peer.out->type == GGML_TYPE_F32) {
        memcpy(dst, peer.out->data, n * sizeof(float));
    } else {
        ggml_get_type_traits(peer.out->type)->to_float(peer.out->data, dst, n);
    }
}

// What the CPU backend found and was built for, for the table's header.
void gp_describe(char *dst, size_t cap) {
    snprintf(dst, cap, "ggml %s: avx2 %d, avx512 %d, avx512_vnni %d, avx512_bf16 %d, avx_vnni %d, amx_int8 %d, llamafile %d",
             ggml_version(), ggml_cpu_has_avx2(), ggml_cpu_has_avx512(), ggml_cpu_has_avx512_vnni(),
             ggml_cpu_has_avx512_bf16(), ggml_cpu_has_avx_vnni(), ggml_cpu_has_amx_int8(), ggml_cpu_has_llamafile());
}
