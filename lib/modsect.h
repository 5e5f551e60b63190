/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmodsect: where a loaded Linux module's sections are, what file they
 * came from, and how a debugger wants to hear about it.
 *
 * One header per folder of lib/, each including the ones below it; this
 * one includes them all. docs/architecture.md has the layers and the
 * data flow: a source (base/ < map/ for sysfs and captures, target/ <
 * kernel/ for kernel memory) gives a struct ms_map; module/ finds and
 * checks each module's file and lays it out; symbolize/ answers
 * addresses; emit/ writes what debuggers and users read.
 *
 * Every function that can fail returns 0 or a negative errno and fills
 * a struct ms_err with a message for the one place that prints it.
 */
#ifndef MODSECT_H
#define MODSECT_H

#define MODSECT_VERSION "0.1.0"

#include "base/base.h"
#include "unwind/unwind.h"
#include "types/types.h"
#include "map/map.h"
#include "target/target.h"
#include "kernel/kernel.h"
#include "source/source.h"
#include "module/module.h"
#include "symbolize/symbolize.h"
#include "emit/emit.h"
#include "serve/serve.h"

#endif
