// SPDX-License-Identifier: GPL-2.0-only
// declret_b.cc - Res's constructor and destructor (see declret.h).
#include "declret.h"

Res::Res(const char *m) : msg(m) {}
Res::~Res() { msg = nullptr; }
