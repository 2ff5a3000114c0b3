// SPDX-License-Identifier: LGPL-2.1
/* Unit tests: no root needed. */
#include <stdlib.h>
#include <check.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(decode_suite());
	int failed;

	srunner_add_suite(sr, tracedat_suite());
	srunner_add_suite(sr, output_suite());
	srunner_add_suite(sr, slab_suite());
	srunner_add_suite(sr, fault_suite());
	srunner_add_suite(sr, perfdata_suite());
	srunner_add_suite(sr, plugins_suite());
	srunner_add_suite(sr, support_suite());
	srunner_add_suite(sr, record_suite());
	srunner_add_suite(sr, formats_suite());
	srunner_add_suite(sr, stacks_suite());
	srunner_add_suite(sr, user_suite());
	srunner_add_suite(sr, textlog_suite());
	srunner_add_suite(sr, diff_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
