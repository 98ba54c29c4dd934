/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * demangle.cc - the C face of LLVM's demanglers (demangle.h).  The only
 * C++ file of perf-run: LLVM-C has no demangling.  Nothing here throws
 * (LLVM's demanglers do not), and every result is malloc'd for C callers.
 */
#include "demangle.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <llvm/Demangle/Demangle.h>

/* A legacy Rust symbol is an Itanium nested name whose last part is
 * "h" and 16 hex digits (17h...E); v0 symbols start with _R. */
static bool rust_legacy(const char *name)
{
	size_t n = strlen(name);

	if (n < 4 + 20 || strncmp(name, "_ZN", 3) || name[n - 1] != 'E')
		return false;
	const char *h = name + n - 1 - 17;
	if (strncmp(h - 2, "17h", 3) || h[0] != 'h')
		return false;
	for (int i = 1; i <= 16; i++)
		if (!strchr("0123456789abcdef", h[i]))
			return false;
	return true;
}

/* rustc's escapes in legacy names: $LT$ is '<', $u20$ ' ', ".." "::". */
static std::string rust_unescape(std::string_view s)
{
	static const struct {
		const char *esc, *c;
	} tab[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" }, { "$GT$", ">" },
		{ "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
	};
	std::string out;

	for (size_t i = 0; i < s.size();) {
		bool done = false;

		/* a name part that starts with an escape has a '_' before it
		 * ("_$LT$impl$GT$"), rustc's, not the name's */
		if (s[i] == '_' && i + 1 < s.size() && s[i + 1] == '$' &&
		    (i == 0 || (i >= 2 && s.compare(i - 2, 2, "::") == 0))) {
			i++;
			continue;
		}
		if (s[i] == '$') {
			for (const auto &t : tab) {
				size_t k = strlen(t.esc);
				if (s.compare(i, k, t.esc) == 0) {
					out += t.c;
					i += k;
					done = true;
					break;
				}
			}
			/* $uXX$: a character by its hex code */
			size_t end = s.find('$', i + 1);
			if (!done && end != std::string_view::npos && s[i + 1] == 'u' && end > i + 2) {
				std::string hex(s.substr(i + 2, end - i - 2));
				char *e;
				unsigned long c = strtoul(hex.c_str(), &e, 16);
				if (!*e && c > 0 && c < 0x80) {
					out += (char)c;
					i = end + 1;
					done = true;
				}
			}
		} else if (s.compare(i, 2, "..") == 0) {
			out += "::";
			i += 2;
			done = true;
		}
		if (!done)
			out += s[i++];
	}
	return out;
}

static char *dup(const std::string &s)
{
	return strdup(s.c_str());
}

static char *legacy(const char *name)
{
	char *d = llvm::itaniumDemangle(name, false);
	if (!d)
		return nullptr;
	std::string s(d);
	free(d);
	size_t h = s.rfind("::h");
	if (h != std::string::npos && s.size() - h == 3 + 16)
		s.erase(h);
	return dup(rust_unescape(s));
}

/* perf's form: the function's qualified name, template arguments kept;
 * a data symbol (a vtable, a guard variable) as demangled. */
static char *itanium_short(const char *name)
{
	llvm::ItaniumPartialDemangler pd;
	char *r = nullptr;

	if (pd.partialDemangle(name))
		return nullptr;
	size_t n = 0;
	if (pd.isFunction())
		r = pd.getFunctionName(nullptr, &n);
	if (!r)
		r = pd.finishDemangle(nullptr, &n);
	return r;
}

/* Template argument lists closed as GNU's demangler closes them, which
 * perf and bpftrace 0.17 print (libiberty, libstdc++'s __cxa_demangle):
 * "> >", where LLVM's writes ">>"; "operator>>" stays.  Takes d. */
static char *gnu_brackets(char *d)
{
	if (!d || !strstr(d, ">>"))
		return d;
	std::string s;
	for (size_t i = 0; d[i]; i++) {
		s += d[i];
		if (d[i] == '>' && d[i + 1] == '>' && !(i >= 8 && !strncmp(d + i - 8, "operator", 8)))
			s += ' ';
	}
	free(d);
	return dup(s);
}

bool dm_is_mangled(const char *name)
{
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

char *dm_demangle(const char *name, enum dm_form form)
{
	if (!dm_is_mangled(name))
		return nullptr;
	if (name[1] == 'R')
		return llvm::rustDemangle(name);
	if (rust_legacy(name))
		return legacy(name);
	return gnu_brackets(form == DM_SHORT ? itanium_short(name) : llvm::itaniumDemangle(name, true));
}
