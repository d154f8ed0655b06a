/* check.h — the assertion macro and summary line shared by the C unit tests (tests/test_c_units.py
 * compiles each test_*.c with the sources it needs and expects "all C unit tests passed"). */
#ifndef GS_CHECK_H
#define GS_CHECK_H
#include <stdio.h>

static int failures = 0;
#define CHECK(cond) do { if (!(cond)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)
#define CHECK_EQ(a, b) do { unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
    if (_a != _b) { printf("FAIL %s:%d: %s == %s (%llu != %llu)\n", __FILE__, __LINE__, #a, #b, _a, _b); failures++; } } while (0)

static inline int check_summary(void) {
    if (failures) { printf("%d failure(s)\n", failures); return 1; }
    printf("all C unit tests passed\n");
    return 0;
}

#endif
