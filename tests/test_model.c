/*
 * test_model.c — models, the spec parser, initialisation, engine specs and
 * Adam's scalars.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/engine.h"
#include "engines/registry.h"
#include "model/model.h"
#include "base/util.h"

static void test_builtin_counts(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    assert_int_equal(m.n_params, 105866); /* write-up B's figure */
    assert_int_equal(m.n_classes, 10);
    assert_int_equal(m.n_layers, 10);
    const layer *last = &m.layers[m.n_layers - 1];
    assert_int_equal(layer_out_size(last), 10);
    assert_int_equal(layer_out_size(&m.layers[5]), 1568); /* pool2: 32x7x7 */
    assert_int_equal(m.layers[7].in_c, 1568);
    assert_int_equal(m.n_tensors, 8);
    assert_int_equal(m.tensors[4].numel, 64 * 1568); /* fc1.weight (out, in) */
    assert_string_equal(m.tensors[4].name, "fc1.weight");
    assert_int_equal(model_build(&m, "mnist-convnet"), 0);
    assert_int_equal(m.n_params, 34826); /* write-up A's figure */
    assert_int_equal(layer_out_size(&m.layers[5]), 1600);
    assert_int_equal(m.layers[7].kind, LAYER_DROPOUT);
    assert_true(m.layers[7].p == 0.5f);
}

static void test_offsets_contiguous(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    size_t off = 0;
    for (int i = 0; i < m.n_tensors; i++) {
        assert_int_equal(m.tensors[i].offset, off);
        off += m.tensors[i].numel;
    }
    assert_int_equal(off, m.n_params);
}

static void test_spec_text(void **st) {
    model m, m2;
    const char *spec = "# a small net\ninput 1 12 12\nconv 4 3   # 10x10\nrelu\nmaxpool\nflatten\ndense 7\n";
    assert_int_equal(model_parse_spec(&m, spec, "t.spec"), 0);
    assert_int_equal(m.layers[2].out_h, 5);
    assert_int_equal(m.n_params, 4 * 9 + 4 + 7 * 100 + 7);
    assert_int_equal(m.n_classes, 7);
    /* the canonical spec parses back to the same model and hash */
    assert_int_equal(model_parse_spec(&m2, m.spec, "canon"), 0);
    assert_string_equal(m.spec, m2.spec);
    assert_true(model_hash(&m) == model_hash(&m2));
    model s;
    assert_int_equal(model_build(&s, "smallcnn"), 0);
    assert_true(model_hash(&s) != model_hash(&m));
}

static void expect_error(const char *spec, const char *needle) {
    model m;
    int rc = model_parse_spec(&m, spec, "bad.spec");
    assert_int_not_equal(rc, 0);
    if (!strstr(ls_errmsg(), needle)) fail_msg("message '%s' lacks '%s'", ls_errmsg(), needle);
    assert_non_null(strstr(ls_errmsg(), "bad.spec"));
}

static void test_spec_errors(void **st) {
    expect_error("input 1 4 4\nconv 2 7\ndense 3", "impossible shape");
    expect_error("input 1 4 4\nmaxpool\nmaxpool\nmaxpool\ndense 3", "impossible shape");
    expect_error("conv 2 3\nflatten\nconv 2 3\ndense 3", "spatial");
    expect_error("conv 2 3\nwobble\ndense 3", "unknown layer");
    expect_error("conv 2 3\nrelu", "last layer");
    expect_error("dense 4\ndropout 1.5\ndense 3", "dropout");
    expect_error("conv x 3\ndense 3", "conv OUT_CHANNELS");
    expect_error("", "no layers");
    expect_error("conv 2 3\n\n\nconv 2 99\ndense 2", "bad.spec:4"); /* line numbers are right */
    model m;
    assert_int_not_equal(model_build(&m, "/nonexistent/model.spec"), 0);
    assert_non_null(strstr(ls_errmsg(), "/nonexistent/model.spec"));
}

static void test_init(void **st) {
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    float *a = malloc(m.n_params * sizeof *a), *b = malloc(m.n_params * sizeof *b);
    model_init_params(&m, a, 42);
    model_init_params(&m, b, 42);
    assert_memory_equal(a, b, m.n_params * sizeof *a);
    for (int ti = 0; ti < m.n_tensors; ti++) {
        const model_tensor *t = &m.tensors[ti];
        float bound = (float)(1.0 / sqrt((double)t->fan_in));
        double sum = 0;
        for (size_t i = 0; i < t->numel; i++) {
            float v = a[t->offset + i];
            assert_true(v >= -bound && v < bound);
            sum += v;
        }
        /* mean of n uniforms on [-b, b): sd b/sqrt(3n); 5 sd is a 1-in-10^6 event */
        double sd = bound / sqrt(3.0 * (double)t->numel);
        if (fabs(sum / t->numel) > 5 * sd) fail_msg("%s mean %g beyond 5 sd %g", t->name, sum / t->numel, sd);
    }
    model_init_params(&m, b, 43);
    size_t same = 0;
    for (size_t i = 0; i < m.n_params; i++) same += a[i] == b[i];
    assert_true(same < m.n_params / 1000);
    free(a);
    free(b);
}

static void test_engine_spec(void **st) {
    engine_spec s;
    assert_int_equal(engine_spec_parse(&s, "cpu:threads=1:algo=winograd"), 0);
    assert_string_equal(s.name, "cpu");
    assert_int_equal(s.n_knobs, 2);
    assert_string_equal(engine_spec_get(&s, "algo", "direct"), "winograd");
    assert_string_equal(engine_spec_get(&s, "isa", "all"), "all");
    const char *ok[] = {"threads", "algo", NULL};
    assert_int_equal(engine_spec_check(&s, ok), 0);
    const char *few[] = {"threads", NULL};
    assert_int_not_equal(engine_spec_check(&s, few), 0);
    assert_non_null(strstr(ls_errmsg(), "algo"));
    assert_int_not_equal(engine_spec_parse(&s, "cpu:threads"), 0);
    assert_int_not_equal(engine_spec_parse(&s, "cpu:a=1:a=2"), 0);
    assert_int_not_equal(engine_spec_parse(&s, ""), 0);
    model m;
    assert_int_equal(model_build(&m, "smallcnn"), 0);
    engine *e = NULL;
    engine_opts o = {42, 8, 0};
    assert_int_not_equal(engine_create(&e, "tpu", &m, &o), 0);
    assert_non_null(strstr(ls_errmsg(), "unknown engine"));
    assert_null(e);
}

static void test_adam_scalars(void **st) {
    adam_cfg c = adam_default();
    adam_scalars a = adam_make_scalars(&c, 1);
    /* t = 1: step_size = lr / (1 - 0.9) = 0.01, bc2_sqrt = sqrt(0.001) */
    assert_true(a.step_size == (float)(1e-3 / (1.0 - 0.9)));
    assert_true(fabsf(a.step_size - 0.01f) <= 0x1p-30f);
    assert_true(a.bc2_sqrt == (float)sqrt(1.0 - 0.999));
    assert_true(a.one_minus_beta1 == (float)(1.0 - 0.9));
    assert_true(a.eps == 1e-8f);
    a = adam_make_scalars(&c, 10000);
    assert_true(fabsf(a.step_size - 1e-3f) < 1e-9f); /* bias correction vanishes */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_counts), cmocka_unit_test(test_offsets_contiguous),
        cmocka_unit_test(test_spec_text),      cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_init),           cmocka_unit_test(test_engine_spec),
        cmocka_unit_test(test_adam_scalars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
