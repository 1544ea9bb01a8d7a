/*
 * pkgconfig_consumer: a program built against the INSTALLED queuey with nothing but
 * `pkg-config --cflags --libs queuey` (see installed_pkgconfig_test.sh).
 *
 * Usage: pkgconfig_consumer VECTORS_DIR. Decodes the seed body, re-encodes it, applies
 * next_attempt and deferred(10), and checks each body byte for byte and the counters
 * against the table in the envelope spec. Exits 1 on any mismatch.
 */
#include <queuey/queuey.h>

#include <stdio.h>

#include "../capi/vectors.h"

struct expected {
    const char *transition; /* NULL: the seed itself */
    const char *body;
    uint32_t attempt;
    uint32_t deferrals;
    uint8_t priority;
};

/* The seed has attempt 2, deferrals 0, priority 0. A retry spends an attempt and resets
   the priority; a deferral spends no attempt, counts itself and sets the priority. */
static const struct expected cases[] = {
    {NULL, "seed.json", 2, 0, 0},
    {"next_attempt", "seed_next_attempt.json", 3, 0, 0},
    {"deferred:10", "seed_deferred_10.json", 2, 1, 10},
};

static int check(const qy_envelope *seed, const char *dir, const struct expected *want, char *why) {
    qy_envelope *env = NULL;
    int ok = want->transition == NULL || qyt_apply_transition(seed, want->transition, &env, why);
    const qy_envelope *got = want->transition == NULL ? seed : env;

    ok = ok && qyt_expect_encoding(got, dir, want->body, why);
    if (ok && (qy_envelope_attempt(got) != want->attempt ||
               qy_envelope_deferrals(got) != want->deferrals ||
               qy_envelope_priority(got) != want->priority)) {
        snprintf(why, QYT_WHY_SIZE,
                 "attempt %lu, deferrals %lu, priority %u; expected %lu, %lu, %u",
                 (unsigned long)qy_envelope_attempt(got), (unsigned long)qy_envelope_deferrals(got),
                 (unsigned)qy_envelope_priority(got), (unsigned long)want->attempt,
                 (unsigned long)want->deferrals, (unsigned)want->priority);
        ok = 0;
    }
    qy_envelope_free(env);
    return ok;
}

int main(int argc, char **argv) {
    qy_envelope *seed = NULL;
    char why[QYT_WHY_SIZE];
    size_t i;
    int failed = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
        return 2;
    }
    printf("queuey %s\n", qy_version_string());
    if (!qyt_decode_body(argv[1], "seed.json", &seed, why)) {
        printf("FAIL decode seed.json: %s\n", why);
        return 1;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char *name = cases[i].transition ? cases[i].transition : "re-encode";
        if (check(seed, argv[1], &cases[i], why)) {
            printf("ok   %s\n", name);
        } else {
            printf("FAIL %s: %s\n", name, why);
            failed = 1;
        }
    }
    qy_envelope_free(seed);
    return failed;
}
