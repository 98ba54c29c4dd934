// SPDX-License-Identifier: GPL-2.0-only
// declret_b.cc - Res's constructors and destructor (see declret.h).
#include "declret.h"

Res::Res(const char *m) : msg(m) {}
Res::Res(const Res &o) : msg(o.msg) {}
Res::~Res() { msg = nullptr; }
