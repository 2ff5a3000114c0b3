/* SPDX-License-Identifier: LGPL-2.1 */
#ifndef KMT_TEST_SUITES_H
#define KMT_TEST_SUITES_H

#include <check.h>

Suite *decode_suite(void);
Suite *tracedat_suite(void);
Suite *output_suite(void);
Suite *slab_suite(void);
Suite *support_suite(void);
Suite *fault_suite(void);
Suite *perfdata_suite(void);
Suite *plugins_suite(void);
Suite *record_suite(void);
Suite *formats_suite(void);
Suite *stacks_suite(void);
Suite *user_suite(void);
Suite *textlog_suite(void);
Suite *diff_suite(void);

#endif
