/* version_test: the header (version.h) and the library loaded at run time agree.
   Usage: version_test [PROJECT_VERSION] also compares with the build's version. */
#include <queuey/queuey.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char *what) {
    if (!ok) {
        printf("FAIL %s\n", what);
        ++failures;
    }
}

int main(int argc, char **argv) {
    char expected[32];

    snprintf(expected, sizeof expected, "%d.%d.%d", QY_VERSION_MAJOR, QY_VERSION_MINOR,
             QY_VERSION_PATCH);
    check(QY_VERSION_NUMBER == qy_version_number(), "QY_VERSION_NUMBER == qy_version_number()");
    check(qy_version_string() != NULL && strcmp(QY_VERSION_STRING, qy_version_string()) == 0,
          "QY_VERSION_STRING equals qy_version_string()");
    check(QY_VERSION_NUMBER == QY_VERSION_MAJOR * 10000 + QY_VERSION_MINOR * 100 + QY_VERSION_PATCH,
          "QY_VERSION_NUMBER == MAJOR * 10000 + MINOR * 100 + PATCH");
    check(QY_VERSION_MINOR < 100 && QY_VERSION_PATCH < 100, "MINOR and PATCH below 100");
    check(strcmp(QY_VERSION_STRING, expected) == 0, "QY_VERSION_STRING is MAJOR.MINOR.PATCH");
    if (argc > 1)
        check(strcmp(argv[1], qy_version_string()) == 0, "library version is the project's");
    printf("header %s (%lu), library %s (%lu): %s\n", QY_VERSION_STRING,
           (unsigned long)QY_VERSION_NUMBER, qy_version_string(),
           (unsigned long)qy_version_number(), failures ? "MISMATCH" : "ok");
    return failures ? 1 : 0;
}
