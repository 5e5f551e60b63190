// SPDX-License-Identifier: GPL-2.0-or-later
/* What the commands' --json output shares (sections, list, debuginfo). */
#include <inttypes.h>
#include <json-c/json.h>

#include "cli.h"

void json_print(FILE *out, json_object *doc)
{
	fprintf(out, "%s\n",
		json_object_to_json_string_ext(
			doc, JSON_C_TO_STRING_PRETTY |
				     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

json_object *json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
	return json_object_new_string(buf);
}

json_object *json_skipped(const struct ms_debuginfo *d)
{
	json_object *sk = json_object_new_array();

	for (size_t i = 0; d && i < d->nskipped; i++) {
		json_object *j = json_object_new_object();

		json_object_object_add(
			j, "file", json_object_new_string(d->skipped[i].path));
		json_object_object_add(
			j, "reason",
			json_object_new_string(d->skipped[i].reason));
		json_object_array_add(sk, j);
	}
	return sk;
}
