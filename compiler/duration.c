// SPDX-License-Identifier: GPL-2.0-only
/*
 * duration.c - duration literals ("5ms"), see duration.h.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "duration.h"

static const struct unit {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ull },
	{ "m", 60000000000ull }, { "h", 3600000000000ull }, { "d", 86400000000000ull },
};

enum dur_result dur_parse(const char *s, size_t n, uint64_t *ns)
{
	size_t i = 0;
	uint64_t v = 0;
	bool overflow = false;

	if (!n || !isdigit((unsigned char)s[0]))
		return DUR_NONE;
	/* octal and hex literals take no unit: "010s" is no duration */
	if (s[0] == '0' && n > 1 && isdigit((unsigned char)s[1]))
		return DUR_NONE;
	for (; i < n && (isdigit((unsigned char)s[i]) || s[i] == '_'); i++) {
		if (s[i] == '_')
			continue;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			overflow = true;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strlen(units[u].name) != n - i || strncmp(s + i, units[u].name, n - i))
			continue;
		if (overflow || v > UINT64_MAX / units[u].ns)
			return DUR_TOO_LARGE;
		*ns = v * units[u].ns;
		return DUR_OK;
	}
	return DUR_NONE;
}
